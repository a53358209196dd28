import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { bareInsertRowsPerSecond } from './ceilings.ts';
import { DATA_DIR, FULL, QUICK, type Sizes, copyDatabase, ensureDataset, ensureLogs } from './dataset.ts';
import { type LoadFigures, type LoadSettings, measureLoad } from './load.ts';
import { ROOT, type Child, runMeasured, startProcess, waitUntilAnswering } from './processes.ts';
import { type ScenarioResult, type Results, printResults, targetsOf } from './report.ts';
import { Probe, type Scenario, readScenarios, writeScenarios } from './scenarios.ts';
import { spread } from './stats.ts';

const API_KEY = 'tb_bench_0123456789abcdefghijklmnopqrstuv';
const AUTH = { Authorization: `Bearer ${API_KEY}` };
const SERVER_PORT = 3917;
const CEILING_PORT = 3918;
/** Event rows the bare-insert ceiling writes: the last ones a write scenario appended. */
const CEILING_ROWS = { full: 50_000, quick: 5_000 };
const STARTUP_RUNS = 3;

export async function main(argv: string[]): Promise<void> {
  const sizes: Sizes = argv.includes('--quick') ? QUICK : FULL;
  const settings: LoadSettings = sizes === QUICK ? { runs: 3, duration: 1 } : { runs: 3, duration: 5 };

  const dataset = await ensureDataset(sizes);
  const logs = await ensureLogs(sizes, dataset);
  const work = path.join(DATA_DIR, `${sizes.name}-work.db`);
  copyDatabase(dataset, work);

  const results: Results = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown', node: process.version },
    sizes,
    settings,
    scenarios: {},
    ceilings: {},
    rebuild: [],
  };

  const server = await startServer(work);
  try {
    const probe = new Probe(`http://127.0.0.1:${SERVER_PORT}`, AUTH);
    const reads = await readScenarios(probe);

    const firstPage = await (await fetch(`http://127.0.0.1:${SERVER_PORT}/api/products?limit=100`, { headers: AUTH })).text();
    results.ceilings.fixedBody = await fixedBodyCeiling(firstPage, settings);
    console.log(`ceiling, fixed 100-product body: ${results.ceilings.fixedBody.cpuUsPerRequest.median.toFixed(1)} µs CPU/request`);

    for (const [key, scenario] of Object.entries(reads)) results.scenarios[key] = await runScenario(key, scenario, server, settings);

    const skus = readOnly(work, (db) => db.prepare('SELECT sku FROM products ORDER BY id').pluck().all() as string[]);
    const writes = await writeScenarios(probe, skus);
    for (const [key, scenario] of Object.entries(writes)) {
      const before = readOnly(work, (db) => db.prepare('SELECT coalesce(max(seq), 0) FROM events').pluck().get() as number);
      const result = await runScenario(key, scenario, server, settings);
      if (result.figures) result.bareInsertRowsPerSecond = bareInsertCeiling(work, before, sizes, settings.runs);
      results.scenarios[key] = result;
    }
  } finally {
    await server.stop();
  }

  for (const file of logs) {
    const run = await runMeasured('bin/tradebook.mjs', ['rebuild'], { TRADEBOOK_DB: file });
    const match = /from (\d+) events in ([\d.]+) s/.exec(run.output);
    if (run.code !== 0 || !match) throw new Error(`rebuild failed:\n${run.output}`);
    const events = Number(match[1]);
    results.rebuild.push({ events, seconds: Number(match[2]), eventsPerSecond: events / Number(match[2]), processSeconds: run.seconds, peakRssMb: run.peakRss / 2 ** 20 });
    console.log(`rebuild of ${events} events: ${Math.round(events / Number(match[2]))} events/s, peak RSS ${(run.peakRss / 2 ** 20).toFixed(0)} MB`);
  }

  const startups: number[] = [];
  for (let i = 0; i < STARTUP_RUNS; i++) {
    const started = performance.now();
    const child = startProcess('bin/server.mjs', [], { TRADEBOOK_DB: logs[1], PORT: String(SERVER_PORT), TRADEBOOK_API_KEY: API_KEY });
    startups.push(await waitUntilAnswering(child, `http://127.0.0.1:${SERVER_PORT}/api/products?limit=1`, AUTH, started));
    await child.stop();
  }
  results.startupMs = spread(startups);

  results.targets = targetsOf(results);
  printResults(results);
  const out = path.join(ROOT, 'bench', 'results', `${results.date.slice(0, 10)}${sizes === QUICK ? '-quick' : ''}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
  console.log(`\nwritten to ${path.relative(ROOT, out)}`);
}

async function startServer(file: string): Promise<Child> {
  const started = performance.now();
  const server = startProcess('bin/server.mjs', [], { TRADEBOOK_DB: file, PORT: String(SERVER_PORT), TRADEBOOK_API_KEY: API_KEY });
  await waitUntilAnswering(server, `http://127.0.0.1:${SERVER_PORT}/api/products?limit=1`, AUTH, started);
  return server;
}

async function runScenario(key: string, scenario: Scenario | undefined, server: Child, settings: LoadSettings): Promise<ScenarioResult> {
  if (!scenario) {
    console.log(`${key}: skipped: endpoint not available`);
    return { name: key, kind: key.startsWith('add') ? 'write' : 'read', skipped: 'endpoint not available' };
  }
  const figures: LoadFigures = await measureLoad(`http://127.0.0.1:${SERVER_PORT}`, server.pid, AUTH, scenario.load, settings);
  console.log(`${scenario.name}: ${Math.round(figures.requestsPerSecond.median)} req/s, ${figures.cpuUsPerRequest.median.toFixed(1)} µs CPU/request`);
  return { name: scenario.name, kind: scenario.kind, figures };
}

async function fixedBodyCeiling(body: string, settings: LoadSettings): Promise<LoadFigures> {
  const bodyFile = path.join(DATA_DIR, 'fixed-body.json');
  fs.writeFileSync(bodyFile, body);
  const started = performance.now();
  const ceiling = startProcess('bench/fixed-body-server.mjs', [bodyFile], { PORT: String(CEILING_PORT) });
  try {
    await waitUntilAnswering(ceiling, `http://127.0.0.1:${CEILING_PORT}/`, {}, started);
    return await measureLoad(`http://127.0.0.1:${CEILING_PORT}`, ceiling.pid, AUTH, { requests: [{ method: 'GET', path: '/api/products?limit=100' }] }, settings);
  } finally {
    await ceiling.stop();
  }
}

/** Bare inserts of the rows the scenario just appended (after seq `after`), into the log's own table shape, several runs. */
function bareInsertCeiling(work: string, after: number, sizes: Sizes, runs: number) {
  const { ddl, rows } = readOnly(work, (db) => ({
    ddl: db.prepare("SELECT sql FROM sqlite_master WHERE tbl_name = 'events' AND type IN ('table', 'index') AND sql IS NOT NULL").pluck().all() as string[],
    rows: db.prepare('SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?').all(after, CEILING_ROWS[sizes.name]) as Record<string, unknown>[],
  }));
  return spread(Array.from({ length: runs }, () => bareInsertRowsPerSecond(ddl, rows, path.join(DATA_DIR, 'ceiling.db'))));
}

function readOnly<T>(file: string, read: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}
