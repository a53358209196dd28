import type { Sizes } from './dataset.ts';
import type { RebuildFloor } from './floors.ts';
import type { LoadFigures, LoadSettings } from './load.ts';
import type { Spread } from './stats.ts';

export interface ScenarioResult {
  name: string;
  kind: 'read' | 'write';
  skipped?: string;
  figures?: LoadFigures;
  /** The write ceiling measured on this scenario's own event rows. */
  bareInsertRowsPerSecond?: Spread;
  /** The floor: the same event rows and the read-model rows they left, written by bare SQLite. */
  readModelFloorRowsPerSecond?: Spread;
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

export interface Results {
  date: string;
  machine: { cpus: number; model: string; node: string };
  sizes: Sizes;
  settings: LoadSettings;
  /** The read ceiling (the products page's body) and a floor (the sales page's own body), both fixed. */
  ceilings: { fixedBody?: LoadFigures; fixedSalesBody?: LoadFigures };
  scenarios: Record<string, ScenarioResult>;
  rebuild: RebuildResult[];
  rebuildFloor?: RebuildFloor;
  startupMs?: Spread;
  targets?: Target[];
}

const range = (s: Spread, digits = 0) => `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;

/** The targets, each judged on this run's figures (median against median). */
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

export function printResults(r: Results): void {
  const ceiling = r.ceilings.fixedBody!;
  console.log(`\n${r.sizes.name} data set, ${r.settings.runs} runs of ${r.settings.duration} s, 10 connections; median (min–max)\n`);
  console.log(`ceiling: fixed 100-product body: ${range(ceiling.requestsPerSecond)} req/s, ${range(ceiling.cpuUsPerRequest, 1)} µs CPU/request`);
  const sales = r.ceilings.fixedSalesBody;
  if (sales) console.log(`floor: the sales page's body, fixed: ${range(sales.requestsPerSecond)} req/s, ${range(sales.cpuUsPerRequest, 1)} µs CPU/request = ${(sales.cpuUsPerRequest.median / ceiling.cpuUsPerRequest.median).toFixed(2)}× the ceiling`);
  console.log('\n| scenario | req/s | p99 ms | server CPU µs/req | ×ceiling | records/s | ×bare insert | floor: with read-model rows |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const s of Object.values(r.scenarios)) {
    if (!s.figures) {
      console.log(`| ${s.name} | skipped: ${s.skipped} | | | | | | |`);
      continue;
    }
    const f = s.figures;
    const cpuRatio = s.kind === 'read' ? `${(f.cpuUsPerRequest.median / ceiling.cpuUsPerRequest.median).toFixed(2)}×` : '';
    const records = f.recordsPerSecond ? range(f.recordsPerSecond) : '';
    const insertRatio = f.recordsPerSecond && s.bareInsertRowsPerSecond ? `${(f.recordsPerSecond.median / s.bareInsertRowsPerSecond.median).toFixed(2)}× of ${s.bareInsertRowsPerSecond.median.toFixed(0)}` : '';
    const floor = s.readModelFloorRowsPerSecond && s.bareInsertRowsPerSecond ? `${range(s.readModelFloorRowsPerSecond)} = ${(s.readModelFloorRowsPerSecond.median / s.bareInsertRowsPerSecond.median).toFixed(2)}×` : '';
    console.log(`| ${s.name} | ${range(f.requestsPerSecond)} | ${range(f.p99Ms)} | ${range(f.cpuUsPerRequest, 1)} | ${cpuRatio} | ${records} | ${insertRatio} | ${floor} |`);
  }
  for (const b of r.rebuild) console.log(`\nrebuild ${b.events} events: ${b.eventsPerSecond.toFixed(0)} events/s (${b.seconds} s), peak RSS ${b.peakRssMb.toFixed(0)} MB`);
  const f = r.rebuildFloor;
  if (f) console.log(`rebuild floor on ${r.rebuild.at(-1)?.events} events: read and parse the log ${f.readSeconds.toFixed(1)} s + SQLite writing the read tables ${f.writeSeconds.toFixed(1)} s = ${f.eventsPerSecond.toFixed(0)} events/s`);
  if (r.startupMs) console.log(`start-up on ${r.rebuild.at(-1)?.events} events: ${range(r.startupMs)} ms`);
  console.log('\n| target | this run | met |\n|---|---|---|');
  for (const t of r.targets ?? []) console.log(`| ${t.target} | ${t.value} | ${t.met === true ? 'yes' : t.met === false ? 'NO' : t.met} |`);
}
