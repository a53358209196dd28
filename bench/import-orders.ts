/**
 * Import and rebuild in any id order: files of products and of contractors whose ids come ascending, descending
 * and shuffled, each imported with `tradebook import` into a fresh database, whose log `tradebook rebuild` then
 * rebuilds. Every order should cost about what ascending does (the read tables' upkeep does not grow with the table).
 * `npm run bench` runs it on the engines it measures (`importOrders`); on its own:
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
type Engine = 'sqlite' | 'postgres';

/** The target: every order within this factor of ascending, for import and rebuild alike. */
export const ORDER_TARGET = 1.5;

export interface ImportOrderRun {
  checkout: string;
  kind: Kind;
  order: Order;
  importSeconds: number;
  rebuildSeconds: number;
  /** The tradebook process's own CPU (on PostgreSQL the server's backends work besides). */
  importCpuSeconds: number;
  rebuildCpuSeconds: number;
  events: number;
}

export interface ImportOrders {
  size: number;
  engine: Engine;
  runs: ImportOrderRun[];
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

/** The import files of `size` records of `kind`, one an order, each after the lines the records need (categories, brands, statuses). */
function importFiles(dir: string, kind: Kind, orders: readonly Order[], size: number): Map<Order, string> {
  const lines = [...demoCompany(20_261_126, { products: size, contractors: size, documents: 0 })];
  const before = lines.filter((l) => l.type !== 'product' && l.type !== 'contractor');
  const records = lines.filter((l) => l.type === kind);
  const files = new Map<Order, string>();
  for (const order of orders) {
    const ordered = order === 'ascending' ? records : order === 'descending' ? [...records].reverse() : shuffled(records);
    const file = path.join(dir, `${kind}s-${order}.ndjson`);
    fs.writeFileSync(file, [...before, ...ordered].map((l) => JSON.stringify(l)).join('\n') + '\n');
    files.set(order, file);
  }
  return files;
}

/** `tradebook <args>` of `checkout` on `db`; throws on failure. */
async function tradebook(checkout: string, args: string[], db: string) {
  const run = await runMeasured(path.join(path.relative(ROOT, checkout), 'bin', 'tradebook.mjs'), args, { TRADEBOOK_DB: db });
  if (run.code !== 0) throw new Error(`tradebook ${args.join(' ')} (${checkout}) failed:\n${run.output}`);
  return run;
}

/**
 * Every kind in every order imported into a fresh database of `engine` and its log rebuilt, by each checkout in
 * turn (this one first), file by file.
 */
export async function measureImportOrders(options: {
  size: number;
  engine: Engine;
  checkouts?: string[];
  kinds?: readonly Kind[];
  orders?: readonly Order[];
}): Promise<ImportOrders> {
  const { size, engine, checkouts = [ROOT], kinds = KINDS, orders = ORDERS } = options;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-orders-'));
  const server = engine === 'postgres' ? new PostgresServer() : undefined;
  const runs: ImportOrderRun[] = [];
  try {
    for (const kind of kinds) {
      const files = importFiles(dir, kind, orders, size);
      for (const [order, file] of files) {
        for (const checkout of checkouts) {
          const db = server ? await server.recreate('tradebook_bench_import') : path.join(dir, `${kind}-${order}.db`);
          if (!server) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(db + suffix, { force: true });
          const imported = await tradebook(checkout, ['import', file], db);
          const rebuilt = await tradebook(checkout, ['rebuild'], db);
          const events = Number(/(\d[\d,]*) events/.exec(rebuilt.output)?.[1].replaceAll(',', '') ?? NaN);
          runs.push({ checkout, kind, order, importSeconds: imported.seconds, rebuildSeconds: rebuilt.seconds, importCpuSeconds: imported.cpuSeconds, rebuildCpuSeconds: rebuilt.cpuSeconds, events });
          console.log(`${engine} ${path.basename(checkout)} ${kind}s ${order}: import ${imported.seconds.toFixed(1)} s (CPU ${imported.cpuSeconds.toFixed(1)} s), rebuild ${rebuilt.seconds.toFixed(1)} s (CPU ${rebuilt.cpuSeconds.toFixed(1)} s) (${events} events)`);
          if (!server) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(db + suffix, { force: true });
        }
      }
    }
  } finally {
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { size, engine, runs };
}

/** How many times the same checkout's ascending file a run took, import and rebuild. */
function againstAscending(r: ImportOrderRun, runs: ImportOrderRun[]): { import: number; rebuild: number } {
  const ascending = runs.find((a) => a.checkout === r.checkout && a.kind === r.kind && a.order === 'ascending') ?? r;
  return { import: r.importSeconds / ascending.importSeconds, rebuild: r.rebuildSeconds / ascending.rebuildSeconds };
}

/** The table of a measurement, seconds and × ascending, and whether every order met ORDER_TARGET. */
export function printImportOrders({ size, engine, runs }: ImportOrders): void {
  const several = new Set(runs.map((r) => r.checkout)).size > 1;
  console.log(`\nimport orders, ${size.toLocaleString('en')} records a file, ${engine}; seconds (× ascending of the same checkout), and the process's CPU seconds`);
  console.log(`| ${several ? 'checkout | ' : ''}records | order | import | rebuild | import CPU | rebuild CPU |\n|${several ? '---|' : ''}---|---|---|---|---|---|`);
  for (const r of runs) {
    const times = againstAscending(r, runs);
    const checkout = several ? `${path.basename(r.checkout)} | ` : '';
    console.log(`| ${checkout}${r.kind}s | ${r.order} | ${r.importSeconds.toFixed(1)} s (${times.import.toFixed(2)}×) | ${r.rebuildSeconds.toFixed(1)} s (${times.rebuild.toFixed(2)}×) | ${r.importCpuSeconds.toFixed(1)} s | ${r.rebuildCpuSeconds.toFixed(1)} s |`);
  }
  const ours = runs.filter((r) => r.checkout === ROOT);
  const worst = Math.max(...ours.map((r) => Math.max(...Object.values(againstAscending(r, ours)))));
  console.log(`target: every order within ${ORDER_TARGET}× of ascending, import and rebuild (${engine}): worst ${worst.toFixed(2)}×, ${worst <= ORDER_TARGET ? 'met' : 'NOT met'}`);
}

function option(argv: string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  return at < 0 ? undefined : argv[at + 1];
}

async function main(argv: string[]): Promise<void> {
  const engine = (option(argv, '--engine') ?? 'sqlite') as Engine;
  const measured = await measureImportOrders({
    size: Number(option(argv, '--size') ?? 100_000),
    engine,
    checkouts: [ROOT, ...(option(argv, '--beside') ? [path.resolve(option(argv, '--beside')!)] : [])],
    kinds: option(argv, '--kinds')?.split(',') as Kind[] | undefined,
    orders: option(argv, '--orders')?.split(',') as Order[] | undefined,
  });
  printImportOrders(measured);
  const out = path.join(ROOT, 'bench', 'results', `${new Date().toISOString().slice(0, 10)}-import-orders${engine === 'postgres' ? '-postgres' : ''}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), loadAverage: os.loadavg(), ...measured }, null, 2));
}

if (import.meta.filename === path.resolve(process.argv[1] ?? '')) await main(process.argv.slice(2));
