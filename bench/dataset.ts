import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { decideBatch } from '../src/use-cases/decide-batch.ts';
import { updatePrices } from '../src/records/product/deciders.ts';
import { lastSeq } from '../src/storage/sqlite/event-log.ts';
import { Company, releaseReadModels } from '../src/company.ts';
import { SqliteEngine } from '../src/storage/sqlite/engine.ts';
import { ROOT, runMeasured } from './processes.ts';

export const DATA_DIR = path.join(ROOT, 'bench', 'data');

/** How big the bench's world is; `--quick` is a tenth of the full one. */
export interface Sizes {
  name: 'full' | 'quick';
  products: number;
  contractors: number;
  documents: number;
  /** The log lengths rebuild is measured at: memory must not grow from the first to the second. */
  logEvents: [number, number];
}

export const FULL: Sizes = { name: 'full', products: 100_000, contractors: 10_000, documents: 200_000, logEvents: [250_000, 1_000_000] };
export const QUICK: Sizes = { name: 'quick', products: 10_000, contractors: 1_000, documents: 20_000, logEvents: [25_000, 100_000] };

const manifestPath = (sizes: Sizes) => path.join(DATA_DIR, `${sizes.name}.json`);
export const datasetPath = (sizes: Sizes) => path.join(DATA_DIR, `${sizes.name}.db`);

/**
 * The seeded database, built once through tradebook's own seed command and reused while its manifest
 * (written only after the seed succeeded) says it has the wanted sizes.
 */
export async function ensureDataset(sizes: Sizes): Promise<string> {
  const file = datasetPath(sizes);
  const wanted = { products: sizes.products, contractors: sizes.contractors, documents: sizes.documents };
  if (fs.existsSync(file) && fs.existsSync(manifestPath(sizes))) {
    const manifest = JSON.parse(fs.readFileSync(manifestPath(sizes), 'utf8'));
    if (manifest.products === wanted.products && manifest.contractors === wanted.contractors && manifest.documents === wanted.documents) return file;
  }
  fs.mkdirSync(DATA_DIR, { recursive: true });
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  console.log(`seeding ${file}: ${wanted.products} products, ${wanted.contractors} contractors, ${wanted.documents} documents…`);
  const args = ['seed', '--demo', '--products', String(wanted.products), '--contractors', String(wanted.contractors), '--documents', String(wanted.documents)];
  const seeded = await runMeasured('bin/tradebook.mjs', args, { TRADEBOOK_DB: file });
  if (seeded.code !== 0) throw new Error(`tradebook seed failed (exit ${seeded.code}):\n${seeded.output}`);
  fs.writeFileSync(manifestPath(sizes), JSON.stringify({ ...wanted, seededIn: seeded.seconds }, null, 2));
  return file;
}

/** A consistent copy of a database (its WAL included), so runs never change the seeded data set. */
export function copyDatabase(from: string, to: string): void {
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(to + suffix, { force: true });
  const db = new Database(from, { readonly: true });
  try {
    db.prepare('VACUUM INTO ?').run(to);
  } finally {
    db.close();
  }
}

export const logPath = (sizes: Sizes, index: 0 | 1) => path.join(DATA_DIR, `${sizes.name}-log-${sizes.logEvents[index]}.db`);

/** Price updates a transaction while the log grows: large, as an integration pushing a price list would. */
const GROW_BATCH = 1000;

/**
 * Copies of the data set whose logs reach each of `sizes.logEvents` (or the seeded log's length, when that is
 * already longer), grown by price updates decided and appended through the commands.
 */
export async function ensureLogs(sizes: Sizes, dataset: string): Promise<[string, string]> {
  const files: [string, string] = [logPath(sizes, 0), logPath(sizes, 1)];
  if (!files.every((f) => fs.existsSync(f))) await growLog(sizes, dataset, sizes.logEvents.map((events, i) => ({ events, file: files[i] })));
  return files;
}

/** The long log (`--long-log`): the data set's log grown to `events`, kept for the next run. */
export async function ensureLongLog(sizes: Sizes, dataset: string, events: number): Promise<string> {
  const file = path.join(DATA_DIR, `${sizes.name}-log-${events}.db`);
  if (!fs.existsSync(file)) await growLog(sizes, dataset, [{ events, file }]);
  return file;
}

/** Grows a copy of the data set's log by price updates, saving a copy at each length in `stops` (ascending). */
async function growLog(sizes: Sizes, dataset: string, stops: { events: number; file: string }[]): Promise<void> {
  const growing = path.join(DATA_DIR, `${sizes.name}-log-growing.db`);
  copyDatabase(dataset, growing);
  const engine = await SqliteEngine.open(growing, releaseReadModels);
  const tb = await Company.over(engine);
  try {
    const skus = engine.db.prepare('SELECT sku FROM products ORDER BY id').pluck().all() as string[];
    if (skus.length === 0) throw new Error('the data set has no products to update prices of');
    let next = 0;
    for (const { events, file } of stops) {
      console.log(`growing the log to ${events} events with price updates…`);
      while (lastSeq(engine.db) < events) {
        const batch = Array.from({ length: GROW_BATCH }, () => {
          const n = next++;
          // Each round over the catalogue sets prices no product had before, so every record appends an event.
          const round = Math.floor(n / skus.length);
          return { sku: skus[n % skus.length], salePrice: 100_000 + round * 100 + (n % 100), purchasePrice: 50_000 + round };
        });
        const applied = await tb.write(() => decideBatch(batch, updatePrices, tb.state, tb.log, { source: 'bench' }));
        if (!applied.ok) throw new Error(`price updates failed: ${JSON.stringify(applied.errors.slice(0, 3))}`);
      }
      engine.db.prepare('VACUUM INTO ?').run(file);
    }
  } finally {
    tb.close();
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(growing + suffix, { force: true });
  }
}
