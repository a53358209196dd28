import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
// @ts-expect-error: a plain ES module of the entry points, without type declarations
import { ENTRIES, ensureBundle } from '../bin/bundle.mjs';
import { bareWritesPerSecond } from './ceilings.ts';
import { rebuildFloor, writesOf } from './floors.ts';
import { DATA_DIR, FULL, QUICK, type Sizes, copyDatabase, ensureDataset, ensureLogs } from './dataset.ts';
import { type LoadSettings, LoadRunner, readLoad } from './load.ts';
import { ROOT, SERVER_SCRIPT, type Child, runMeasured, serverNodeOptions, startProcess, waitUntilAnswering } from './processes.ts';
import { type ScenarioResult, type Results, printResults, targetsOf } from './report.ts';
import { Probe, type Scenario, type WorkbenchSubject, readScenarios, workbenchScenarios, writeScenarios } from './scenarios.ts';
import { spread } from './stats.ts';

const API_KEY = 'tb_bench_0123456789abcdefghijklmnopqrstuv';
const AUTH = { Authorization: `Bearer ${API_KEY}` };
const SERVER_PORT = 3917;
const CEILING_PORT = 3918;
const SALES_BODY_PORT = 3919;
/** At most this many of the event rows a write scenario's last run appended are bare-inserted for its ceiling. */
const CEILING_ROWS = { full: 50_000, quick: 5_000 };
const STARTUP_RUNS = 3;

export async function main(argv: string[]): Promise<void> {
  const sizes: Sizes = argv.includes('--quick') ? QUICK : FULL;
  const settings: LoadSettings = sizes === QUICK ? { runs: 3, duration: 1 } : { runs: 3, duration: 5 };

  // A stale bundle is rebuilt by the first process that runs it: that process's time and memory would count the build.
  for (const [name, entry] of Object.entries(ENTRIES as Record<string, string>)) await ensureBundle(entry, name);
  const dataset = await ensureDataset(sizes);
  const logs = await ensureLogs(sizes, dataset);
  const work = path.join(DATA_DIR, `${sizes.name}-work.db`);
  copyDatabase(dataset, work);
  const subject = await workbenchSubject(work);

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
  const fixedBodies: Child[] = [];
  try {
    const probe = new Probe(`http://127.0.0.1:${SERVER_PORT}`, AUTH);
    const bodyOf = async (path: string) => (await fetch(`http://127.0.0.1:${SERVER_PORT}${path}`, { headers: AUTH })).text();
    const reads = await readScenarios(probe);
    // Each fixed-body server answers one real page, pre-serialised: the products page is the read ceiling; the
    // sales page's own body (about twice as long) shows what its size alone costs against that ceiling.
    const fixed: Partial<Record<string, { port: number; child: Child }>> = {};
    const fixedBody = async (key: string, path: string, port: number) => {
      const child = await startFixedBodyServer(await bodyOf(path), key, port);
      fixedBodies.push(child);
      fixed[key] = { port, child };
      return { name: `${key === 'fixedBody' ? 'ceiling' : 'floor'}: fixed body of ${path}`, load: readLoad(() => '/') };
    };
    const skus = readOnly(work, (db) => db.prepare('SELECT sku FROM products ORDER BY id').pluck().all() as string[]);
    const planned: Planned[] = [
      { key: 'fixedBody', kind: 'fixed', scenario: await fixedBody('fixedBody', '/api/products?limit=100', CEILING_PORT) },
      { key: 'fixedSalesBody', kind: 'fixed', scenario: reads.salesFirst?.path ? await fixedBody('fixedSalesBody', reads.salesFirst.path, SALES_BODY_PORT) : undefined },
      ...Object.entries(reads).map(([key, scenario]) => ({ key, kind: 'read' as const, scenario })),
      ...Object.entries(await workbenchScenarios(`http://127.0.0.1:${SERVER_PORT}`, probe, subject)).map(([key, scenario]) => ({ key, kind: 'read' as const, scenario })),
      ...Object.entries(await writeScenarios(probe, skus)).map(([key, scenario]) => ({ key, kind: 'write' as const, scenario })),
    ];
    const running = planned.flatMap((p) => {
      const target = fixed[p.key] ?? { port: SERVER_PORT, child: server };
      if (p.scenario) return [{ ...p, scenario: p.scenario, runner: new LoadRunner(`http://127.0.0.1:${target.port}`, target.child.pid, AUTH, p.scenario.load), lastRun: { from: 0, to: 0 } }];
      console.log(`${p.key}: skipped: endpoint not available`);
      results.scenarios[p.key] = { name: p.key, kind: p.kind as ScenarioResult['kind'], skipped: 'endpoint not available' };
      return [];
    });
    for (const r of running) await r.runner.warmUp(Math.max(1, settings.duration / 5));
    // Run by run over every scenario, so a shared machine's changing load falls on all of them alike; each run
    // starts at another scenario, as the first one after a pause measured dearer.
    for (let run = 1; run <= settings.runs; run++) {
      for (const r of [...running.slice(run - 1), ...running.slice(0, run - 1)]) {
        const from = lastEventSeq(work);
        await r.runner.measure(settings.duration);
        r.lastRun = { from, to: lastEventSeq(work) };
      }
      console.log(`run ${run} of ${settings.runs} done`);
    }
    for (const r of running) {
      const figures = r.runner.figures();
      if (r.kind === 'fixed') {
        results.ceilings[r.key as keyof Results['ceilings']] = figures;
        continue;
      }
      const result: ScenarioResult = { name: r.scenario.name, kind: r.kind, figures };
      if (r.kind === 'write') Object.assign(result, bareWrites(work, r.lastRun, sizes, settings.runs));
      results.scenarios[r.key] = result;
    }
    // The table lists scenarios in the order they were planned, skipped ones in their place.
    results.scenarios = Object.fromEntries(planned.filter((p) => p.kind !== 'fixed').map((p) => [p.key, results.scenarios[p.key]]));
  } finally {
    for (const child of fixedBodies) await child.stop();
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
  // On the longer log, whose read tables the rebuild just made current.
  results.rebuildFloor = rebuildFloor(logs[1]);

  const startups: number[] = [];
  for (let i = 0; i < STARTUP_RUNS; i++) {
    const started = performance.now();
    const child = spawnServer(logs[1]);
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

/** An audit key made in the work database, and the contractor whose year has the most documents. */
async function workbenchSubject(file: string): Promise<WorkbenchSubject> {
  const made = await runMeasured('bin/tradebook.mjs', ['keys', 'create', '--name', 'bench auditor', '--scope', 'audit', '--json'], { TRADEBOOK_DB: file });
  if (made.code !== 0) throw new Error(`could not create an audit key:\n${made.output}`);
  const auditKey = (JSON.parse(made.output.split('\n').find((line) => line.startsWith('{'))!) as { key: string }).key;
  const db = new Database(file, { readonly: true });
  try {
    const busiest = db
      .prepare(
        `SELECT r.contractor_id AS contractorId, substr(d.date, 1, 4) AS year, count(*) AS documents
         FROM document_records r JOIN documents d ON d.key = r.key GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 1`,
      )
      .get() as WorkbenchSubject['busiest'];
    return { auditKey, busiest };
  } finally {
    db.close();
  }
}

/** The server on `file`, started as `npm start` starts it (its Node options too). */
const spawnServer = (file: string) => startProcess(SERVER_SCRIPT, [], { TRADEBOOK_DB: file, PORT: String(SERVER_PORT), TRADEBOOK_API_KEY: API_KEY }, serverNodeOptions());

async function startServer(file: string): Promise<Child> {
  const started = performance.now();
  const server = spawnServer(file);
  await waitUntilAnswering(server, `http://127.0.0.1:${SERVER_PORT}/api/products?limit=1`, AUTH, started);
  return server;
}

interface Planned {
  key: string;
  kind: 'fixed' | ScenarioResult['kind'];
  scenario: Scenario | undefined;
}

/** A bare node:http server answering `body` to every request (the body kept in `bench/data/<name>.json`). */
async function startFixedBodyServer(body: string, name: string, port: number): Promise<Child> {
  const bodyFile = path.join(DATA_DIR, `${name}.json`);
  fs.writeFileSync(bodyFile, body);
  const started = performance.now();
  const child = startProcess('bench/fixed-body-server.mjs', [bodyFile], { PORT: String(port) });
  await waitUntilAnswering(child, `http://127.0.0.1:${port}/`, {}, started);
  return child;
}

const lastEventSeq = (file: string) => readOnly(file, (db) => db.prepare('SELECT coalesce(max(seq), 0) FROM events').pluck().get() as number);

/**
 * Bare writes of the records a scenario's last run appended, into the database's own table shapes, several runs
 * each: their event rows alone (the ceiling), and with the read-model rows they left (the floor).
 */
function bareWrites(work: string, run: { from: number; to: number }, sizes: Sizes, runs: number): Pick<ScenarioResult, 'bareInsertRowsPerSecond' | 'readModelFloorRowsPerSecond'> {
  const writes = readOnly(work, (db) => writesOf(db, run, CEILING_ROWS[sizes.name]));
  const measure = (withReadModel: boolean) => spread(Array.from({ length: runs }, () => bareWritesPerSecond(writes, path.join(DATA_DIR, 'ceiling.db'), withReadModel)));
  return { bareInsertRowsPerSecond: measure(false), readModelFloorRowsPerSecond: measure(true) };
}

function readOnly<T>(file: string, read: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}
