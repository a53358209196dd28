import type { FeedResults } from './feed.ts';
import type { Sizes } from './dataset.ts';
import type { RebuildFloor } from './floors.ts';
import type { LoadFigures, LoadSettings } from './load.ts';
import type { Spread } from './stats.ts';

/** The engines the bench runs. */
export type Engine = 'sqlite' | 'postgres';

/** Write groups seen holding the chain head's row lock while a write scenario ran, from pg_stat_activity. */
export interface LockHold {
  /** Samples of pg_stat_activity taken, and their mean interval in ms. */
  samples: number;
  intervalMs: number;
  /** Write transactions (groups of units: token GETs and POSTs alike) seen from start to commit. */
  groups: number;
  /**
   * Milliseconds each such group held the lock: from its transaction's start, or the previous group's commit when
   * that came later (it waited meanwhile), to its commit.
   */
  holdMs?: Spread & { p90: number };
  /** Share of the samples in which a group held the lock (not waiting for it). */
  heldShare: number;
  /** Transactions waiting for a lock, on average over the samples. */
  waiting: number;
}


export interface ScenarioResult {
  name: string;
  kind: 'read' | 'write';
  skipped?: string;
  figures?: LoadFigures;
  /** The write ceiling measured on this scenario's own event rows. */
  bareInsertRowsPerSecond?: Spread;
  /** The floor: the same event rows and the read-model rows they left, written by a bare client of the same engine. */
  readModelFloorRowsPerSecond?: Spread;
  /** PostgreSQL: the chain head's row lock per write group, sampled in one more run of the scenario. */
  lockHold?: LockHold;
}

export interface RebuildResult {
  events: number;
  seconds: number;
  eventsPerSecond: number;
  processSeconds: number;
  peakRssMb: number;
}

export interface Target {
  target: string;
  value: string;
  met: boolean | 'not measured';
}

/** What loading one engine's servers measured: the scenarios, and the ceilings taken in the same runs. */
export interface LoadResults {
  /** The read ceiling (the products page's body) and a floor (the sales page's own body), both fixed. */
  ceilings: { fixedBody?: LoadFigures; fixedSalesBody?: LoadFigures };
  scenarios: Record<string, ScenarioResult>;
}

/** N servers on one PostgreSQL database, loaded together. */
export interface PostgresRun extends LoadResults {
  servers: number;
}

export interface PostgresResults {
  /** The server's version, and the database the data set was copied into (its URL without a password). */
  server: string;
  database: string;
  /** `tradebook copy --to`: the data set's log and keys moved in, as the command reports it. */
  copy: { events: number; seconds: number };
  /** The first server opened on the copy, from spawn to its first 200: it builds the read tables from the log. */
  firstOpen: { events: number; seconds: number; eventsPerSecond: number; line?: string };
  runs: PostgresRun[];
  /** `tradebook rebuild` on each grown log, copied in first (that copy's time beside it). */
  rebuild: (RebuildResult & { copySeconds: number })[];
  rebuildFloor?: RebuildFloor;
  startupMs?: Spread;
  /** What the SQLite run measures that this one does not, and why. */
  notMeasured: string[];
}

/** The run's figures. SQLite's sit at the top level as they always have (empty when only PostgreSQL ran). */
export interface Results extends LoadResults {
  date: string;
  machine: { cpus: number; model: string; node: string };
  /** The machine's load average (1, 5, 15 min) when the bench started and ended: other work sharing the cores shows here. */
  loadAverage?: { start: number[]; end: number[] };
  sizes: Sizes;
  settings: LoadSettings;
  engines: Engine[];
  rebuild: RebuildResult[];
  rebuildFloor?: RebuildFloor;
  startupMs?: Spread;
  targets?: Target[];
  postgres?: PostgresResults;
  /** Following the log under load (`feed.ts`). */
  feed?: FeedResults;
}

const range = (s: Spread, digits = 0) => `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;

/** The issue's targets, each judged on this run's figures (median against median). */
export function targetsOf(r: Results): Target[] {
  const cpu = (key: string) => r.scenarios[key]?.figures?.cpuUsPerRequest.median;
  const ceiling = r.ceilings.fixedBody!.cpuUsPerRequest.median;
  const targets: Target[] = [];
  const ratio = (target: string, value: number | undefined, base: number | undefined, limit: number, atMost = true) => {
    if (value === undefined || base === undefined) return targets.push({ target, value: 'skipped', met: 'not measured' });
    const x = value / base;
    targets.push({ target, value: `${x.toFixed(2)}×`, met: atMost ? x <= limit : x >= limit });
  };
  ratio('products page CPU/request ≤ 4× fixed body', cpu('productsFirst'), ceiling, 4);
  ratio('sales page CPU/request ≤ 4× fixed body', cpu('salesFirst'), ceiling, 4);
  ratio('last products page ≤ 1.5× first', cpu('productsLast'), cpu('productsFirst'), 1.5);
  ratio('last filtered sales page ≤ 1.5× first', cpu('salesLast'), cpu('salesFirst'), 1.5);
  ratio('product by id, access log on ≤ 1.15× off (side by side)', cpu('productByIdBeside'), cpu('productByIdAccessLogOff'), 1.15);
  ratio('product by id ≤ 1.6× fixed body', cpu('productById'), ceiling, 1.6);
  ratio('product by id, key cache on ÷ off (side by side: what the cache saves)', cpu('productByIdBeside'), cpu('productByIdKeyCacheOff'), 1);
  for (const key of ['addContractors100', 'updatePrices100']) {
    const s = r.scenarios[key];
    ratio(`${key} records/s ≥ 0.4× bare insert`, s?.figures?.recordsPerSecond?.median, s?.bareInsertRowsPerSecond?.median, 0.4, false);
  }
  for (const [key, what] of [['documentPage', 'document page'], ['statementPage', "busiest contractor's one-year statement"]]) {
    const us = cpu(key);
    targets.push(us === undefined ? { target: `${what} < 50 ms server CPU`, value: 'skipped', met: 'not measured' } : { target: `${what} < 50 ms server CPU`, value: `${(us / 1000).toFixed(1)} ms`, met: us < 50_000 });
  }
  const single = r.scenarios.addContractors1?.figures?.recordsPerSecond?.median;
  targets.push(single === undefined ? { target: 'addContractors1 ≥ 1,500 records/s', value: 'skipped', met: 'not measured' } : { target: 'addContractors1 ≥ 1,500 records/s', value: single.toFixed(0), met: single >= 1500 });
  const [small, large] = r.rebuild;
  if (large) {
    targets.push({ target: `rebuild ≥ 150,000 events/s (${large.events} events)`, value: large.eventsPerSecond.toFixed(0), met: large.eventsPerSecond >= 150_000 });
    targets.push({ target: 'rebuild peak RSS < 200 MB', value: `${large.peakRssMb.toFixed(0)} MB`, met: large.peakRssMb < 200 });
    // Constant memory: four times the log may not cost noticeably more (10% covers the allocator's noise).
    targets.push({ target: `rebuild memory constant (${small.events} vs ${large.events} events)`, value: `${small.peakRssMb.toFixed(0)} vs ${large.peakRssMb.toFixed(0)} MB`, met: large.peakRssMb <= small.peakRssMb * 1.1 });
  }
  if (r.startupMs) targets.push({ target: `start-up ≤ 1 s (${large?.events} events)`, value: `${r.startupMs.median.toFixed(0)} ms`, met: r.startupMs.median <= 1000 });
  return targets;
}

/** One load phase's ceilings and scenarios; with the database server's CPU (PostgreSQL) in two more columns. */
function printLoad(load: LoadResults): void {
  const ceiling = load.ceilings.fixedBody!;
  console.log(`ceiling: fixed 100-product body: ${range(ceiling.requestsPerSecond)} req/s, ${range(ceiling.cpuUsPerRequest, 1)} µs CPU/request`);
  const sales = load.ceilings.fixedSalesBody;
  if (sales) console.log(`floor: the sales page's body, fixed: ${range(sales.requestsPerSecond)} req/s, ${range(sales.cpuUsPerRequest, 1)} µs CPU/request = ${(sales.cpuUsPerRequest.median / ceiling.cpuUsPerRequest.median).toFixed(2)}× the ceiling`);
  const database = Object.values(load.scenarios).some((s) => s.figures?.databaseCpuUsPerRequest);
  console.log(`\n| scenario | req/s | p99 ms | server CPU µs/req | ×ceiling | records/s | ×bare insert | floor: with read-model rows |${database ? ' postgres CPU µs/req | server + postgres µs/req |' : ''}`);
  console.log(`|---|---|---|---|---|---|---|---|${database ? '---|---|' : ''}`);
  for (const s of Object.values(load.scenarios)) {
    if (!s.figures) {
      console.log(`| ${s.name} | skipped: ${s.skipped} | | | | | | |${database ? ' | |' : ''}`);
      continue;
    }
    const f = s.figures;
    const cpuRatio = s.kind === 'read' ? `${(f.cpuUsPerRequest.median / ceiling.cpuUsPerRequest.median).toFixed(2)}×` : '';
    const records = f.recordsPerSecond ? range(f.recordsPerSecond) : '';
    const insertRatio = f.recordsPerSecond && s.bareInsertRowsPerSecond ? `${(f.recordsPerSecond.median / s.bareInsertRowsPerSecond.median).toFixed(2)}× of ${s.bareInsertRowsPerSecond.median.toFixed(0)}` : '';
    const floor = s.readModelFloorRowsPerSecond && s.bareInsertRowsPerSecond ? `${range(s.readModelFloorRowsPerSecond)} = ${(s.readModelFloorRowsPerSecond.median / s.bareInsertRowsPerSecond.median).toFixed(2)}×` : '';
    const db = f.databaseCpuUsPerRequest ? ` ${range(f.databaseCpuUsPerRequest, 1)} | ${(f.cpuUsPerRequest.median + f.databaseCpuUsPerRequest.median).toFixed(1)} |` : database ? ' | |' : '';
    console.log(`| ${s.name} | ${range(f.requestsPerSecond)} | ${range(f.p99Ms)} | ${range(f.cpuUsPerRequest, 1)} | ${cpuRatio} | ${records} | ${insertRatio} | ${floor} |${db}`);
  }
}

function printRebuildFloor(f: RebuildFloor | undefined, rebuild: RebuildResult[], engine: string): void {
  if (f) console.log(`rebuild floor on ${rebuild.at(-1)?.events} events: read and parse the log ${f.readSeconds.toFixed(1)} s + ${engine} writing the read tables ${f.writeSeconds.toFixed(1)} s = ${f.eventsPerSecond.toFixed(0)} events/s`);
}

function printPostgres(p: PostgresResults): void {
  console.log(`\n## ${p.server}: ${p.database}\n`);
  console.log(`tradebook copy --to: ${p.copy.events} events in ${p.copy.seconds} s`);
  console.log(`first open (the read tables built from the log, spawn to first 200): ${p.firstOpen.seconds.toFixed(1)} s = ${p.firstOpen.eventsPerSecond.toFixed(0)} events/s`);
  for (const run of p.runs) {
    console.log(`\n### ${run.servers > 1 ? `${run.servers} servers on the one database, the 10 connections spread over them` : 'One server'}\n`);
    printLoad(run);
    const writes = Object.values(run.scenarios).filter((s) => s.lockHold);
    if (writes.length === 0) continue;
    console.log('\n| write scenario, one more run sampled | groups seen | lock held per group, ms: median (min–max) | p90 | lock held | waiting, mean | samples (every … ms) |\n|---|---|---|---|---|---|---|');
    for (const s of writes) {
      const l = s.lockHold!;
      const hold = l.holdMs ? `${range(l.holdMs, 2)} | ${l.holdMs.p90.toFixed(2)}` : 'none seen | ';
      console.log(`| ${s.name} | ${l.groups} | ${hold} | ${(l.heldShare * 100).toFixed(0)} % | ${l.waiting.toFixed(2)} | ${l.samples} (${l.intervalMs.toFixed(1)}) |`);
    }
  }
  console.log('');
  for (const b of p.rebuild) console.log(`rebuild ${b.events} events (copied in ${b.copySeconds} s): ${b.eventsPerSecond.toFixed(0)} events/s (${b.seconds} s), peak RSS ${b.peakRssMb.toFixed(0)} MB`);
  printRebuildFloor(p.rebuildFloor, p.rebuild, 'PostgreSQL');
  if (p.startupMs) console.log(`start-up on ${p.rebuild.at(-1)?.events} events: ${range(p.startupMs)} ms`);
  for (const what of p.notMeasured) console.log(`not measured on PostgreSQL: ${what}`);
}

/** Every engine run of this bench side by side, a column each: throughput, and CPU per request in all. */
function printSideBySide(r: Results): void {
  const columns: { title: string; load: LoadResults }[] = [
    ...(r.ceilings.fixedBody ? [{ title: 'SQLite', load: r as LoadResults }] : []),
    ...(r.postgres?.runs ?? []).map((run) => ({ title: `PostgreSQL, ${run.servers} server${run.servers > 1 ? 's' : ''}`, load: run })),
  ];
  if (columns.length < 2) return;
  const cell = (f: LoadFigures | undefined) => {
    if (!f) return 'skipped';
    const throughput = f.recordsPerSecond ? `${f.recordsPerSecond.median.toFixed(0)} records/s` : `${f.requestsPerSecond.median.toFixed(0)} req/s`;
    const db = f.databaseCpuUsPerRequest?.median;
    const server = f.cpuUsPerRequest.median;
    return `${throughput}, ${db === undefined ? `${server.toFixed(0)} µs` : `${server.toFixed(0)} + ${db.toFixed(0)} = ${(server + db).toFixed(0)} µs`}`;
  };
  console.log('\nSide by side: median req/s (records/s for writes), CPU µs a request: tradebook server(s) + PostgreSQL processes = in all\n');
  console.log(`| scenario | ${columns.map((c) => c.title).join(' | ')} |\n|---|${columns.map(() => '---|').join('')}`);
  console.log(`| ceiling: fixed body | ${columns.map((c) => cell(c.load.ceilings.fixedBody)).join(' | ')} |`);
  for (const [key, s] of Object.entries(columns[0].load.scenarios)) console.log(`| ${s.name} | ${columns.map((c) => cell(c.load.scenarios[key]?.figures)).join(' | ')} |`);
}

export function printResults(r: Results): void {
  const load = r.loadAverage && ` (load average ${r.loadAverage.start.map((l) => l.toFixed(2)).join(', ')} at the start, ${r.loadAverage.end.map((l) => l.toFixed(2)).join(', ')} at the end)`;
  console.log(`\n${r.sizes.name} data set, ${r.settings.runs} runs of ${r.settings.duration} s, 10 connections; median (min–max)${load ?? ''}\n`);
  if (r.ceilings.fixedBody) {
    if (r.postgres) console.log('## SQLite\n');
    printLoad(r);
    for (const b of r.rebuild) console.log(`\nrebuild ${b.events} events: ${b.eventsPerSecond.toFixed(0)} events/s (${b.seconds} s), peak RSS ${b.peakRssMb.toFixed(0)} MB`);
    printRebuildFloor(r.rebuildFloor, r.rebuild, 'SQLite');
    if (r.startupMs) console.log(`start-up on ${r.rebuild.at(-1)?.events} events: ${range(r.startupMs)} ms`);
  }
  if (r.postgres) printPostgres(r.postgres);
  printSideBySide(r);
  if (!r.targets) return;
  console.log('\n| target | this run | met |\n|---|---|---|');
  for (const t of r.targets) console.log(`| ${t.target} | ${t.value} | ${t.met === true ? 'yes' : t.met === false ? 'NO' : t.met} |`);
}
