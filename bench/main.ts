import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// @ts-expect-error: a plain ES module of the entry points, without type declarations
import { ENTRIES, ensureBundle } from '../bin/bundle.mjs';
import { type EngineUnderTest, sqliteUnderTest } from './engines.ts';
import { DELIVERY_WRITES_ACROSS_SERVERS, FEED_SERVER_ENV, FOLLOWERS, type FollowingAcrossServers, type FollowingOneServer, feedResults, measureDelivery, measureFeed, printFeed } from './feed.ts';
import { rebuildFloor } from './floors.ts';
import { type ImportOrders, measureImportOrders, printImportOrders } from './import-orders.ts';
import { DATA_DIR, FULL, QUICK, type Sizes, copyDatabase, ensureDataset, ensureLogs, ensureLongLog } from './dataset.ts';
import { type LoadSettings, type Target, LoadRunner, readLoad } from './load.ts';
import { PostgresServer, postgresUnderTest, rebuildFloorOnPostgres, shown } from './postgres.ts';
import { ROOT, SERVER_SCRIPT, type Child, runMeasured, serverNodeOptions, startProcess, waitUntilAnswering } from './processes.ts';
import { type Engine, type LoadResults, type PostgresResults, type RebuildResult, type Results, type ScenarioResult, printResults, targetsOf } from './report.ts';
import { Probe, type Scenario, readScenarios, workbenchScenarios, writeScenarios } from './scenarios.ts';
import { spread } from './stats.ts';

const API_KEY = 'tb_bench_0123456789abcdefghijklmnopqrstuv';
const AUTH = { Authorization: `Bearer ${API_KEY}` };
const SERVER_PORT = 3917;
const CEILING_PORT = 3918;
const SALES_BODY_PORT = 3919;
/** The first server listens on SERVER_PORT; more servers of one PostgreSQL database on the ports after the fixed-body servers'. */
const serverPort = (index: number) => (index === 0 ? SERVER_PORT : SALES_BODY_PORT + index);
/** The `index`th of servers started together (`startServers`), as the load reaches it. */
const targetOf = (server: Child, index: number): Target => ({ url: `http://127.0.0.1:${serverPort(index)}`, pid: server.pid });
/** At most this many of the event rows a write scenario's last run appended are bare-inserted for its ceiling. */
const CEILING_ROWS = { full: 50_000, quick: 5_000 };
const STARTUP_RUNS = 3;
/** Records a file of the import in each id order (`import-orders.ts`). */
const IMPORT_ORDER_SIZE = { full: 100_000, quick: 5_000 };
/**
 * A product by id once more, each from a server of its own beside the measured one (one server only), with one
 * setting changed: what the access log costs a small read, and what the key cache saves it.
 */
const SETTING_VARIANTS: { key: string; what: string; port: number; env: Record<string, string> }[] = [
  { key: 'productByIdAccessLogOff', what: 'access log off', port: 3940, env: { TRADEBOOK_ACCESS_LOG: 'off' } },
  { key: 'productByIdKeyCacheOff', what: 'key cache off', port: 3941, env: { TRADEBOOK_KEY_CACHE_MS: '0' } },
];
/** Seconds of load each setting variant's server is given before it is measured. */
const VARIANT_WARM_UP_S = 5;
/** The first open of a PostgreSQL copy builds its read tables from the whole log: minutes, not a minute. */
const FIRST_OPEN_TIMEOUT_MS = 6 * 3600_000;

interface Options {
  sizes: Sizes;
  settings: LoadSettings;
  engines: Engine[];
  /** How many servers share the PostgreSQL database, one load phase each. */
  servers: number[];
  /** `--feed`: only the phase of following the log (`feed.ts`), on each engine `--engine` names (on PostgreSQL, across `--servers`). */
  feedOnly: boolean;
  /** `--long-log [events]`: only a rebuild of (and a start on) a log grown that long, on SQLite. */
  longLog?: number;
}

/** The long log's default length: a company's whole history, as the rebuild is meant to take it. */
const LONG_LOG_EVENTS = 10_000_000;

function optionsOf(argv: string[]): Options {
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at < 0 ? undefined : argv[at + 1];
  };
  const engine = value('--engine') ?? 'sqlite';
  const engines: Record<string, Engine[]> = { sqlite: ['sqlite'], postgres: ['postgres'], both: ['sqlite', 'postgres'] };
  if (!engines[engine]) throw new Error(`--engine takes sqlite, postgres or both, not ${engine}`);
  const servers = (value('--servers') ?? '1').split(',').map(Number);
  if (servers.some((n) => !Number.isInteger(n) || n < 1 || n > 10)) throw new Error(`--servers takes a number of servers from 1 to 10, or several separated by commas: ${value('--servers')}`);
  if (value('--servers') !== undefined && engine === 'sqlite') throw new Error('--servers is for PostgreSQL (--engine postgres or both): a SQLite file is served by one process');
  const feedOnly = argv.includes('--feed');
  if (feedOnly && engine !== 'sqlite' && Math.max(...servers) < 2) throw new Error('--feed on PostgreSQL measures delivery from one server to others: give --servers 2 (or more)');
  const sizes = argv.includes('--quick') ? QUICK : FULL;
  const longLog = argv.includes('--long-log') ? Number(/^\d+$/.test(value('--long-log') ?? '') ? value('--long-log') : LONG_LOG_EVENTS) : undefined;
  if (longLog !== undefined && longLog <= sizes.logEvents[1]) throw new Error(`--long-log takes a number of events above ${sizes.logEvents[1]} (the longer of the usual logs)`);
  return { sizes, settings: sizes === QUICK ? { runs: 3, duration: 1 } : { runs: 3, duration: 5 }, engines: engines[engine], servers, feedOnly, longLog };
}

export async function main(argv: string[]): Promise<void> {
  const options = optionsOf(argv);
  const { sizes, settings } = options;

  // With a stale bundle the processes would run from the sources (tsx): their time and memory would count that.
  for (const [name, entry] of Object.entries(ENTRIES as Record<string, string>)) await ensureBundle(entry, name);
  const dataset = await ensureDataset(sizes);
  if (options.longLog !== undefined) return measureLongLog(sizes, dataset, options.longLog);

  const results: Results = {
    date: new Date().toISOString(),
    machine: machineOf(),
    loadAverage: { start: os.loadavg(), end: [] },
    sizes,
    settings,
    engines: options.engines,
    scenarios: {},
    ceilings: {},
    rebuild: [],
  };
  const resultsName = `${results.date.slice(0, 10)}${sizes === QUICK ? '-quick' : ''}${options.feedOnly ? '-feed' : ''}${options.engines.includes('postgres') ? `${options.engines.includes('sqlite') ? '-sqlite' : ''}-postgres-x${options.servers.join('-')}` : ''}`;
  const work = path.join(DATA_DIR, `${sizes.name}-work.db`);
  if (options.feedOnly) {
    let oneServer: FollowingOneServer | undefined;
    if (options.engines.includes('sqlite')) {
      const [, longLog] = await ensureLogs(sizes, dataset);
      copyDatabase(dataset, work);
      oneServer = await measureFollowing(sqliteUnderTest(work), longLog, settings);
    }
    let acrossServers: FollowingAcrossServers[] = [];
    if (options.engines.includes('postgres')) {
      const server = new PostgresServer();
      try {
        acrossServers = await followAcrossServers(server, (await buildOnPostgres(server, dataset, sizes)).name, options.servers);
      } finally {
        await server.close();
      }
    }
    const feed = feedResults(oneServer, acrossServers);
    printFeed(feed);
    const out = path.join(ROOT, 'bench', 'results', `${resultsName}.json`);
    fs.writeFileSync(out, JSON.stringify({ ...results, loadAverage: { ...results.loadAverage, end: os.loadavg() }, feed }, null, 2) + '\n');
    console.log(`\nwritten to ${path.relative(ROOT, out)}`);
    return;
  }
  const logs = await ensureLogs(sizes, dataset);
  let oneServer: FollowingOneServer | undefined;
  if (options.engines.includes('sqlite')) {
    copyDatabase(dataset, work);
    Object.assign(results, await measureLoad(sqliteUnderTest(work), 1, options));
    for (const file of logs) results.rebuild.push(await measureRebuild(file));
    // On the longer log, whose read tables the rebuild just made current.
    results.rebuildFloor = rebuildFloor(logs[1]);
    results.startupMs = await measureStartup(logs[1]);
    results.targets = targetsOf(results);
    copyDatabase(dataset, work);
    oneServer = await measureFollowing(sqliteUnderTest(work), logs[1], settings);
  }
  let acrossServers: FollowingAcrossServers[] = [];
  if (options.engines.includes('postgres')) {
    const server = new PostgresServer();
    try {
      results.postgres = await benchPostgres(server, dataset, logs, options);
      acrossServers = await followAcrossServers(server, postgresName(sizes), options.servers);
      if (acrossServers.length === 0) results.postgres.notMeasured.push('delivery of a change from one server to the streams on another: it takes --servers 2 or more');
    } finally {
      await server.close();
    }
  }
  if (oneServer || acrossServers.length > 0) results.feed = feedResults(oneServer, acrossServers);
  const importOrders: ImportOrders[] = [];
  for (const engine of options.engines) importOrders.push(await measureImportOrders({ size: IMPORT_ORDER_SIZE[sizes.name], engine }));

  results.loadAverage!.end = os.loadavg();
  printResults(results);
  if (results.feed) printFeed(results.feed);
  importOrders.forEach(printImportOrders);
  const out = path.join(ROOT, 'bench', 'results', `${resultsName}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({ ...results, importOrders }, null, 2) + '\n');
  console.log(`\nwritten to ${path.relative(ROOT, out)}`);
}

/**
 * The data set moved into a fresh PostgreSQL database as an operator would (`tradebook copy --to`), its first
 * open (the read tables built from the log) timed on its own, then for each number of servers a fresh copy of it
 * (`CREATE DATABASE … TEMPLATE`) loaded through that many servers; the grown logs copied in and rebuilt there.
 */
async function benchPostgres(server: PostgresServer, dataset: string, logs: [string, string], options: Options): Promise<PostgresResults> {
  const { name, url, copy, firstOpen } = await buildOnPostgres(server, dataset, options.sizes);
  const notMeasured: string[] = [];
  const runs: PostgresResults['runs'] = [];
  for (const servers of options.servers) {
    // Every load phase starts from the same built copy, as SQLite's starts from a fresh copy of the data set.
    const db = await postgresUnderTest(await server.recreate(`${name}_work`, name));
    if (!db.databaseCpu && runs.length === 0) notMeasured.push("the PostgreSQL processes' CPU: the server is not on this machine");
    try {
      console.log(`PostgreSQL, ${servers} server${servers > 1 ? 's' : ''}:`);
      runs.push({ servers, ...(await measureLoad(db, servers, options)) });
    } finally {
      await db.close();
    }
  }

  const rebuild: PostgresResults['rebuild'] = [];
  const logUrls: string[] = [];
  for (const file of logs) {
    const logUrl = await server.recreate(`${name}_log_${path.basename(file, '.db').split('-').at(-1)}`);
    const { seconds: copySeconds } = await copyInto(file, logUrl);
    rebuild.push({ ...(await measureRebuild(logUrl)), copySeconds });
    logUrls.push(logUrl);
  }
  return {
    server: `PostgreSQL ${await server.version()}`,
    database: shown(url),
    copy,
    firstOpen,
    runs,
    rebuild,
    // On the longer log, whose read tables the rebuild just made current.
    rebuildFloor: await rebuildFloorOnPostgres(logUrls[1]),
    startupMs: await measureStartup(logUrls[1]),
    notMeasured,
  };
}

/** The bench's built PostgreSQL database of a data set's size; each phase works on copies of it. */
const postgresName = (sizes: Sizes) => `tradebook_bench_${sizes.name}`;

/**
 * The data set moved into `postgresName` made afresh, as an operator would (`tradebook copy --to`), and its first
 * open (the read tables built from the log) timed on its own.
 */
async function buildOnPostgres(server: PostgresServer, dataset: string, sizes: Sizes): Promise<{ name: string; url: string } & Pick<PostgresResults, 'copy' | 'firstOpen'>> {
  const name = postgresName(sizes);
  const url = await server.recreate(name);
  const copy = await copyInto(dataset, url);
  console.log(`PostgreSQL: ${copy.events} events copied into ${shown(url)} in ${copy.seconds} s; first open (builds the read tables from the log)…`);
  const opened = await startServers(url, 1, FIRST_OPEN_TIMEOUT_MS);
  await opened.servers[0].stop();
  const firstOpen = {
    events: copy.events,
    seconds: opened.ms / 1000,
    eventsPerSecond: copy.events / (opened.ms / 1000),
    line: /"msg":"(built the read tables from the log[^"]*)"/.exec(opened.servers[0].output())?.[1],
  };
  console.log(`first open: ${firstOpen.seconds.toFixed(1)} s (${firstOpen.eventsPerSecond.toFixed(0)} events/s): ${firstOpen.line ?? 'no build logged'}`);
  return { name, url, copy, firstOpen };
}

/**
 * The feed across servers (`feed.ts`), for each count of `--servers` of two or more: a fresh copy of the built
 * database `template` served by that many servers (room for the streams, as on SQLite), one-record writes through
 * the first, timed to their arrival on 100 streams spread over the others.
 */
async function followAcrossServers(server: PostgresServer, template: string, counts: number[]): Promise<FollowingAcrossServers[]> {
  const measured: FollowingAcrossServers[] = [];
  for (const count of counts.filter((n) => n >= 2)) {
    const db = await postgresUnderTest(await server.recreate(`${template}_work`, template));
    try {
      const { servers } = await startServers(db.setting, count, undefined, FEED_SERVER_ENV);
      try {
        const [writer, ...followed] = servers.map(targetOf);
        console.log(`following changes across ${count} PostgreSQL servers: ${DELIVERY_WRITES_ACROSS_SERVERS} writes…`);
        const deliveryMs = await measureDelivery({
          streamsOn: followed,
          headers: AUTH,
          writeOne: oneRecordWriter(writer.url, await db.skus()),
          lastSeq: () => db.lastEventSeq(),
          writes: DELIVERY_WRITES_ACROSS_SERVERS,
        });
        measured.push({ postgres: await server.version(), servers: count, streams: FOLLOWERS, deliveryMs });
      } finally {
        await Promise.all(servers.map((s) => s.stop()));
      }
    } finally {
      await db.close();
    }
  }
  return measured;
}

/** `tradebook copy --to url` from a SQLite file, as the command reports it. */
async function copyInto(file: string, url: string): Promise<{ events: number; seconds: number }> {
  const run = await runMeasured('bin/tradebook.mjs', ['copy', '--to', url, '--json'], { TRADEBOOK_DB: file });
  const report = run.output.split('\n').find((line) => line.startsWith('{'));
  if (run.code !== 0 || !report) throw new Error(`tradebook copy failed:\n${run.output}`);
  const { events, seconds } = JSON.parse(report) as { events: number; seconds: number };
  return { events, seconds };
}

/**
 * Loads `servers` servers of one database with every scenario, interleaved run by run with the ceilings'
 * fixed-body servers; the write scenarios' bare writes, and where the engine shows it the write lock, after.
 */
async function measureLoad(db: EngineUnderTest, serverCount: number, { sizes, settings }: Options): Promise<LoadResults> {
  const results: LoadResults = { ceilings: {}, scenarios: {} };
  const subject = { auditKey: await createAuditKey(db.setting), busiest: await db.busiest() };
  const { servers } = await startServers(db.setting, serverCount);
  const targets = servers.map(targetOf);
  const fixedBodies: Child[] = [];
  try {
    const base = targets[0].url;
    const probe = new Probe(base, AUTH);
    const bodyOf = async (path: string) => (await fetch(`${base}${path}`, { headers: AUTH })).text();
    const reads = await readScenarios(probe);
    // Each fixed-body server answers one real page, pre-serialised: the products page is the read ceiling; the
    // sales page's own body (about twice as long) shows what its size alone costs against that ceiling.
    const fixed: Partial<Record<string, Target>> = {};
    const fixedBody = async (key: string, path: string, port: number) => {
      const child = await startFixedBodyServer(await bodyOf(path), key, port);
      fixedBodies.push(child);
      fixed[key] = { url: `http://127.0.0.1:${port}`, pid: child.pid };
      return { name: `${key === 'fixedBody' ? 'ceiling' : 'floor'}: fixed body of ${path}`, load: readLoad(() => '/') };
    };
    const planned: Planned[] = [
      { key: 'fixedBody', kind: 'fixed', scenario: await fixedBody('fixedBody', '/api/products?limit=100', CEILING_PORT) },
      { key: 'fixedSalesBody', kind: 'fixed', scenario: reads.salesFirst?.path ? await fixedBody('fixedSalesBody', reads.salesFirst.path, SALES_BODY_PORT) : undefined },
      ...Object.entries(reads).map(([key, scenario]) => ({ key, kind: 'read' as const, scenario })),
      ...Object.entries(await workbenchScenarios(base, probe, subject)).map(([key, scenario]) => ({ key, kind: 'read' as const, scenario })),
      ...Object.entries(await writeScenarios(probe, await db.skus())).map(([key, scenario]) => ({ key, kind: 'write' as const, scenario })),
    ];
    const running = planned.flatMap((p) => {
      const target = fixed[p.key];
      // A fixed-body server needs no database; the database server's CPU is read for tradebook's servers only.
      const runner = (scenario: Scenario) => (target ? new LoadRunner([target], AUTH, scenario.load) : new LoadRunner(targets, AUTH, scenario.load, db.databaseCpu));
      if (p.scenario) return [{ ...p, scenario: p.scenario, runner: runner(p.scenario), lastRun: { from: 0, to: 0 } }];
      console.log(`${p.key}: skipped: endpoint not available`);
      results.scenarios[p.key] = { name: p.key, kind: p.kind as ScenarioResult['kind'], skipped: 'endpoint not available' };
      return [];
    });
    for (const r of running) await r.runner.unmeasuredRun(Math.max(1, settings.duration / 5));
    // Run by run over every scenario, so a shared machine's changing load falls on all of them alike; each run
    // starts at another scenario, as the first one after a pause measured dearer.
    for (let run = 1; run <= settings.runs; run++) {
      for (const r of [...running.slice(run - 1), ...running.slice(0, run - 1)]) {
        const from = await db.lastEventSeq();
        await r.runner.measure(settings.duration);
        r.lastRun = { from, to: await db.lastEventSeq() };
      }
      console.log(`run ${run} of ${settings.runs} done`);
    }
    for (const r of running) {
      const figures = r.runner.figures();
      if (r.kind === 'fixed') {
        results.ceilings[r.key as keyof LoadResults['ceilings']] = figures;
        continue;
      }
      const result: ScenarioResult = { name: r.scenario.name, kind: r.kind, figures };
      if (r.kind === 'write') {
        Object.assign(result, await db.bareWrites(r.lastRun, CEILING_ROWS[sizes.name], settings.runs));
        // Sampling takes CPU of its own on a small machine: in one more run, whose figures are not kept.
        if (db.sampleLock) result.lockHold = await db.sampleLock(r.runner.unmeasuredRun(settings.duration));
      }
      results.scenarios[r.key] = result;
    }
    if (serverCount === 1 && reads.productById) Object.assign(results.scenarios, await measureSettingVariants(db, targets[0], reads.productById, settings));
    // The table lists scenarios in the order they were planned, skipped ones in their place, the variants last.
    const variantKeys = Object.keys(results.scenarios).filter((key) => !planned.some((p) => p.key === key));
    results.scenarios = Object.fromEntries([...planned.filter((p) => p.kind !== 'fixed').map((p) => p.key), ...variantKeys].map((key) => [key, results.scenarios[key]]));
    return results;
  } finally {
    for (const child of fixedBodies) await child.stop();
    await Promise.all(servers.map((s) => s.stop()));
  }
}

/**
 * A product by id from the measured server and from one server a setting variant, started beside it on the same
 * database after the other scenarios (so none of them shares the machine with idle variants, and no write leaves
 * work to a variant's checkpointer), in interleaved runs of their own: the measured server's figure of this phase
 * is `productByIdBeside`, what each variant is compared with.
 */
async function measureSettingVariants(db: EngineUnderTest, measured: Target, productById: Scenario, settings: LoadSettings): Promise<Record<string, ScenarioResult>> {
  const started: Child[] = [];
  try {
    const runners: [string, string, LoadRunner][] = [['productByIdBeside', `${productById.name}, beside the variants`, new LoadRunner([measured], AUTH, productById.load, db.databaseCpu)]];
    for (const variant of SETTING_VARIANTS) {
      const since = performance.now();
      const child = spawnServer(db.setting, variant.port, variant.env);
      started.push(child);
      await waitUntilAnswering(child, `http://127.0.0.1:${variant.port}/api/products?limit=1`, AUTH, since);
      runners.push([variant.key, `${productById.name}, ${variant.what}`, new LoadRunner([{ url: `http://127.0.0.1:${variant.port}`, pid: child.pid }], AUTH, productById.load, db.databaseCpu)]);
    }
    // The variants start cold beside a server warmed by every scenario: on a loaded machine, their first seconds
    // of load (V8 still compiling) measured 2-5x the CPU a request of their later ones.
    for (const [, , runner] of runners) await runner.unmeasuredRun(VARIANT_WARM_UP_S);
    for (let run = 1; run <= settings.runs; run++) {
      for (const [, , runner] of [...runners.slice(run - 1), ...runners.slice(0, run - 1)]) await runner.measure(settings.duration);
    }
    return Object.fromEntries(runners.map(([key, name, runner]) => [key, { name, kind: 'read' as const, figures: runner.figures() }]));
  } finally {
    for (const child of started) await child.stop();
  }
}

/** The feed's phase on SQLite (`feed.ts`): a server on `db` followed while it is written, then one on the longest log. */
async function measureFollowing(db: EngineUnderTest, longLog: string, settings: LoadSettings): Promise<FollowingOneServer> {
  const serve = async (setting: string) => {
    const since = performance.now();
    const child = spawnServer(setting, SERVER_PORT, FEED_SERVER_ENV);
    await waitUntilAnswering(child, `http://127.0.0.1:${SERVER_PORT}/api/changes?limit=1`, AUTH, since);
    return { child, target: { url: `http://127.0.0.1:${SERVER_PORT}`, pid: child.pid } };
  };
  const { child, target } = await serve(db.setting);
  try {
    const skus = await db.skus();
    const write = (await writeScenarios(new Probe(target.url, AUTH), skus)).updatePrices100!;
    const onLongLog = async () => {
      await child.stop();
      const long = await serve(longLog);
      return { target: long.target, events: await sqliteUnderTest(longLog).lastEventSeq(), stop: () => long.child.stop() };
    };
    return await measureFeed({ server: target, headers: AUTH, write, writeOne: oneRecordWriter(target.url, skus), lastSeq: () => db.lastEventSeq(), settings, onLongLog });
  } finally {
    await child.stop();
  }
}

/** One-record `update-product-prices` writes through the server at `url` (token GET, then POST), each a new price. */
function oneRecordWriter(url: string, skus: string[]): () => Promise<void> {
  let price = 0;
  return async () => {
    const path = `${url}/api/update-product-prices`;
    const token = ((await (await fetch(path, { headers: AUTH })).json()) as { data: { access_token: string } }).data.access_token;
    const body = JSON.stringify({ data: [{ sku: skus[price % skus.length], salePrice: 9000 + price++ / 100 }] });
    const res = await fetch(path, { method: 'POST', headers: { ...AUTH, 'X-Access-Token': token, 'Content-Type': 'application/json' }, body });
    if (res.status !== 200) throw new Error(`a one-record write was answered ${res.status}: ${await res.text()}`);
  };
}

/** An audit key made in the database through the command line, for the workbench's pages. */
async function createAuditKey(setting: string): Promise<string> {
  const made = await runMeasured('bin/tradebook.mjs', ['keys', 'create', '--name', 'bench auditor', '--scope', 'audit', '--json'], { TRADEBOOK_DB: setting });
  if (made.code !== 0) throw new Error(`could not create an audit key:\n${made.output}`);
  return (JSON.parse(made.output.split('\n').find((line) => line.startsWith('{'))!) as { key: string }).key;
}

/** `tradebook rebuild` as a process on `setting`: events/s from its own report, peak RSS from /proc. */
async function measureRebuild(setting: string): Promise<RebuildResult> {
  const run = await runMeasured('bin/tradebook.mjs', ['rebuild'], { TRADEBOOK_DB: setting });
  const match = /from (\d+) events in ([\d.]+) s/.exec(run.output);
  if (run.code !== 0 || !match) throw new Error(`rebuild failed:\n${run.output}`);
  const events = Number(match[1]);
  const seconds = Number(match[2]);
  console.log(`rebuild of ${events} events: ${Math.round(events / seconds)} events/s, peak RSS ${(run.peakRss / 2 ** 20).toFixed(0)} MB`);
  return { events, seconds, eventsPerSecond: events / seconds, processSeconds: run.seconds, peakRssMb: run.peakRss / 2 ** 20 };
}

/** What the results were measured on. */
const machineOf = () => ({ cpus: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown', node: process.version });

/** `--long-log`: the rebuild of a log of `events` (the data set's, grown by price updates), and a start on it. */
async function measureLongLog(sizes: Sizes, dataset: string, events: number): Promise<void> {
  const file = await ensureLongLog(sizes, dataset, events);
  const loadAverage = { start: os.loadavg(), end: [] as number[] };
  const rebuild = await measureRebuild(file);
  const startupMs = await measureStartup(file);
  loadAverage.end = os.loadavg();
  console.log(`\n## The long log (${rebuild.events} events, SQLite)\n`);
  console.log('| rebuild | events/s | peak RSS | start-up on it (median of 3) |\n|---|---|---|---|');
  console.log(`| ${rebuild.seconds.toFixed(1)} s | ${Math.round(rebuild.eventsPerSecond)} | ${rebuild.peakRssMb.toFixed(0)} MB | ${startupMs.median.toFixed(0)} ms |`);
  const out = path.join(ROOT, 'bench', 'results', `${new Date().toISOString().slice(0, 10)}${sizes === QUICK ? '-quick' : ''}-long-log-${events}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), machine: machineOf(), loadAverage, rebuild, startupMs }, null, 2) + '\n');
  console.log(`\nwritten to ${path.relative(ROOT, out)}`);
}

/** Milliseconds from spawning the server on `setting` to its first 200, STARTUP_RUNS times. */
async function measureStartup(setting: string) {
  const startups: number[] = [];
  for (let i = 0; i < STARTUP_RUNS; i++) {
    const { servers, ms } = await startServers(setting, 1);
    startups.push(ms);
    await servers[0].stop();
  }
  return spread(startups);
}

/** A server on `setting` and `port`, started as `npm start` starts it (its Node options too). */
const spawnServer = (setting: string, port: number, env: Record<string, string> = {}) =>
  startProcess(SERVER_SCRIPT, [], { TRADEBOOK_DB: setting, PORT: String(port), TRADEBOOK_API_KEY: API_KEY, ...env }, serverNodeOptions());

/** `count` servers on one database, started together (with `env` beside the defaults); the milliseconds until the last of them answered. */
async function startServers(setting: string, count: number, timeoutMs?: number, env: Record<string, string> = {}): Promise<{ servers: Child[]; ms: number }> {
  const started = performance.now();
  const servers = Array.from({ length: count }, (_, i) => spawnServer(setting, serverPort(i), env));
  try {
    const answered = await Promise.all(servers.map((s, i) => waitUntilAnswering(s, `http://127.0.0.1:${serverPort(i)}/api/products?limit=1`, AUTH, started, timeoutMs)));
    return { servers, ms: Math.max(...answered) };
  } catch (error) {
    await Promise.all(servers.map((s) => s.stop()));
    throw error;
  }
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
