/**
 * Import and rebuild in any id order: files of products and of contractors whose ids come ascending, descending
 * and shuffled, each imported with `tradebook import` into a fresh database, whose log `tradebook rebuild` then
 * rebuilds. Every order should cost about what ascending does (the read tables' upkeep does not grow with the table).
 *
 *   node --import tsx bench/import-orders.ts [--size 100000] [--engine sqlite|postgres] [--beside <checkout>]
 *     [--kinds product,contractor] [--orders ascending,descending,random]
 *
 * `--beside` runs another checkout's `bin/tradebook.mjs` on the same files, interleaved with this one's, so a
 * shared machine's drifting load falls on both alike. PostgreSQL: TRADEBOOK_BENCH_POSTGRES_URL names the server
 * (default postgres://root@127.0.0.1:5432/postgres); each run gets a database of its own, dropped after it.
 * Prints a table and writes `bench/results/<date>-import-orders[-postgres].json`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { demoCompany } from '../src/seed/demo-company.ts';
import { PostgresServer } from './postgres.ts';
import { ROOT, runMeasured } from './processes.ts';

const ORDERS = ['ascending', 'descending', 'random'] as const;
const KINDS = ['product', 'contractor'] as const;
type Order = (typeof ORDERS)[number];
type Kind = (typeof KINDS)[number];

interface Run {
  checkout: string;
  kind: Kind;
  order: Order;
  importSeconds: number;
  rebuildSeconds: number;
  events: number;
}

function option(argv: string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  return at < 0 ? undefined : argv[at + 1];
}

/** A shuffle of `items` that every run repeats (a fixed seed). */
function shuffled<T>(items: T[]): T[] {
  const out = [...items];
  let state = 20_261_126;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** The import file of `size` records of `kind` in `order`, after the lines they need (categories, brands, statuses). */
function importFile(dir: string, kind: Kind, order: Order, size: number): string {
  const lines = [...demoCompany(20_261_126, { products: size, contractors: size, documents: 0 })];
  const before = lines.filter((l) => l.type !== 'product' && l.type !== 'contractor');
  const records = lines.filter((l) => l.type === kind);
  const ordered = order === 'ascending' ? records : order === 'descending' ? [...records].reverse() : shuffled(records);
  const file = path.join(dir, `${kind}s-${order}.ndjson`);
  fs.writeFileSync(file, [...before, ...ordered].map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

/** `tradebook <args>` of `checkout` on `db`; throws on failure. */
async function tradebook(checkout: string, args: string[], db: string) {
  const run = await runMeasured(path.join(path.relative(ROOT, checkout), 'bin', 'tradebook.mjs'), args, { TRADEBOOK_DB: db });
  if (run.code !== 0) throw new Error(`tradebook ${args.join(' ')} (${checkout}) failed:\n${run.output}`);
  return run;
}

const argv = process.argv.slice(2);
const size = Number(option(argv, '--size') ?? 100_000);
const engine = option(argv, '--engine') ?? 'sqlite';
const kinds = (option(argv, '--kinds')?.split(',') ?? KINDS) as Kind[];
const orders = (option(argv, '--orders')?.split(',') ?? ORDERS) as Order[];
const checkouts = [ROOT, ...(option(argv, '--beside') ? [path.resolve(option(argv, '--beside')!)] : [])];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-orders-'));
const server = engine === 'postgres' ? new PostgresServer() : undefined;
const runs: Run[] = [];
try {
  for (const kind of kinds) {
    for (const order of orders) {
      const file = importFile(dir, kind, order, size);
      for (const checkout of checkouts) {
        const db = server ? await server.recreate('tradebook_bench_import') : path.join(dir, `${kind}-${order}.db`);
        if (!server) fs.rmSync(db, { force: true });
        const imported = await tradebook(checkout, ['import', file], db);
        const rebuilt = await tradebook(checkout, ['rebuild'], db);
        const events = Number(/(\d[\d,]*) events/.exec(rebuilt.output)?.[1].replaceAll(',', '') ?? NaN);
        runs.push({ checkout, kind, order, importSeconds: imported.seconds, rebuildSeconds: rebuilt.seconds, events });
        console.log(`${path.basename(checkout)} ${kind}s ${order}: import ${imported.seconds.toFixed(1)} s, rebuild ${rebuilt.seconds.toFixed(1)} s (${events} events)`);
      }
    }
  }
} finally {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

console.log(`\n${size.toLocaleString('en')} records a file, ${engine}; seconds (× ascending of the same checkout)`);
console.log('| checkout | records | order | import | rebuild |\n|---|---|---|---|---|');
for (const r of runs) {
  const ascending = runs.find((a) => a.checkout === r.checkout && a.kind === r.kind && a.order === 'ascending') ?? r;
  const times = (s: number, base: number) => `${s.toFixed(1)} s (${(s / base).toFixed(2)}×)`;
  console.log(`| ${path.basename(r.checkout)} | ${r.kind}s | ${r.order} | ${times(r.importSeconds, ascending.importSeconds)} | ${times(r.rebuildSeconds, ascending.rebuildSeconds)} |`);
}
const out = path.join(ROOT, 'bench', 'results', `${new Date().toISOString().slice(0, 10)}-import-orders${engine === 'postgres' ? '-postgres' : ''}.json`);
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), size, engine, loadAverage: os.loadavg(), runs }, null, 2));
