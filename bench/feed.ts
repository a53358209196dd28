import fs from 'node:fs';
import { type LoadSettings, LoadRunner, type LoadFigures, type Target } from './load.ts';
import { cpuSeconds } from './processes.ts';
import type { Scenario } from './scenarios.ts';
import type { Spread } from './stats.ts';

/**
 * Following the log under load (README "Following changes"): the write scenario's throughput with 100 server-sent
 * event streams and 100 long-polls following it against without them, run for run; how long a change takes from
 * its write to every stream; what an idle stream costs the server (memory, CPU); and one consumer catching up on
 * the longest log, by pages and by a stream. On PostgreSQL with two servers or more, how long a change written
 * through one server takes to reach the streams on the others (its commit's NOTIFY heard there).
 */

/** From sending a one-record write to each stream's receipt of its change: an upper bound of commit to delivery. */
export interface DeliveryMs {
  writes: number;
  p50: number;
  p99: number;
  max: number;
  writeAnswerP99: number;
}

/** One SQLite server followed while it is written, then the longest log caught up on. */
export interface FollowingOneServer {
  followers: { streams: number; longPolls: number };
  /** `benchCpuSeconds`: this process's own CPU in the measured runs (the followers' clients run here, on the same cores as the server). */
  writes: { name: string; without: LoadFigures; with: LoadFigures; ratio: number; benchCpuSeconds: { without: number; with: number } };
  deliveryMs: DeliveryMs;
  /** The server's CPU over one heartbeat period, with no stream and with `streams` idle ones (their heartbeats included). */
  idle: { streams: number; rssBytesEach: number; cpuMsPerSecond: number; cpuMsPerSecondWithout: number };
  catchUp: { events: number; pagesPerSecond: number; streamPerSecond: number };
}

/** `servers` PostgreSQL servers on one database: writes through the first, `streams` streams spread over the others. */
export interface FollowingAcrossServers {
  /** The PostgreSQL server's version. */
  postgres: string;
  servers: number;
  streams: number;
  deliveryMs: DeliveryMs;
}

/**
 * The feed's phase: SQLite's figures at the top level (absent when only PostgreSQL ran), as the results file has
 * always kept them; the PostgreSQL runs of two servers or more across them.
 */
export interface FeedResults extends Partial<FollowingOneServer> {
  acrossServers?: FollowingAcrossServers[];
  /** The targets, judged on these figures. */
  targets: { target: string; value: string; met: boolean }[];
}

/** Streams (and long-polls) following the writes. */
export const FOLLOWERS = 100;
const IDLE_STREAMS = 1000;
/** The server's heartbeat period (TRADEBOOK_STREAM_HEARTBEAT_MS's default): the idle CPU is measured over one. */
const HEARTBEAT_S = 15;
const DELIVERY_WRITES = 30;
/** Across servers, as many writes as the measurement the 250 ms were first read against (p50 31 ms, p99 72 ms). */
export const DELIVERY_WRITES_ACROSS_SERVERS = 200;

/** What the servers of this phase are started with: room for the streams, from one client address. */
export const FEED_SERVER_ENV = {
  TRADEBOOK_STREAMS: '5000',
  TRADEBOOK_STREAMS_PER_KEY: '5000',
  TRADEBOOK_MAX_CONNECTIONS: '8192',
  TRADEBOOK_MAX_CONNECTIONS_PER_CLIENT: '8192',
};

/** A stream from the bench process; `onId` hears each change's seq and when it arrived. */
function openStream(url: string, headers: Record<string, string>, onId?: (seq: number, at: number) => void) {
  const controller = new AbortController();
  let lastId = 0;
  const opened = fetch(url, { headers: { ...headers, Accept: 'text/event-stream' }, signal: controller.signal }).then(async (res) => {
    if (res.status !== 200) throw new Error(`a stream was answered ${res.status}: ${await res.text()}`);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let rest = '';
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          const at = performance.now();
          rest += decoder.decode(value, { stream: true });
          const lines = rest.split('\n');
          rest = lines.pop()!;
          for (const line of lines) {
            if (!line.startsWith('id: ')) continue;
            lastId = Number(line.slice(4));
            onId?.(lastId, at);
          }
        }
      } catch {
        // aborted
      }
    })();
  });
  return { opened, close: () => controller.abort(), lastId: () => lastId };
}

/** A long-poll loop from the bench process, following the log until closed. */
function longPoll(base: string, headers: Record<string, string>, after: number) {
  let open = true;
  const controller = new AbortController();
  const done = (async () => {
    while (open) {
      try {
        const res = await fetch(`${base}/api/changes?after=${after}&limit=1000&wait=30`, { headers, signal: controller.signal });
        after = ((await res.json()) as { meta: { next: number } }).meta.next;
      } catch {
        return;
      }
    }
  })();
  return {
    close: async () => {
      open = false;
      controller.abort();
      await done;
    },
  };
}

const rssOf = (pid: number) => Number(/^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))];

export async function measureFeed(options: {
  server: Target;
  headers: Record<string, string>;
  write: Scenario;
  /** One write of one record; resolves when answered. */
  writeOne: () => Promise<void>;
  lastSeq: () => Promise<number>;
  settings: LoadSettings;
  /** Starts a server on the longest log (stopped by the caller's `stop`). */
  onLongLog: () => Promise<{ target: Target; events: number; stop(): Promise<void> }>;
}): Promise<FollowingOneServer> {
  const { server, headers, settings } = options;
  const changes = `${server.url}/api/changes`;

  // Idle streams, on the server fresh (no garbage of the writes yet): its memory and CPU with them open and nothing
  // written, against its CPU with none over as long (what the server does by itself: key cache, checkpoints, hooks).
  const idleCpu = async () => {
    const before = cpuSeconds(server.pid);
    await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_S * 1000));
    return ((cpuSeconds(server.pid) - before) * 1000) / HEARTBEAT_S;
  };
  const cpuMsPerSecondWithout = await idleCpu();
  const rssBefore = rssOf(server.pid);
  const end = await options.lastSeq();
  const idle = Array.from({ length: IDLE_STREAMS }, () => openStream(`${changes}?after=${end}`, headers));
  await Promise.all(idle.map((s) => s.opened));
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const rssAfter = rssOf(server.pid);
  const cpuMsPerSecond = await idleCpu();
  idle.forEach((s) => s.close());
  const idleFigures = { streams: IDLE_STREAMS, rssBytesEach: Math.max(0, rssAfter - rssBefore) / IDLE_STREAMS, cpuMsPerSecond, cpuMsPerSecondWithout };

  // Write throughput without followers and with them, run for run.
  const without = new LoadRunner([server], headers, options.write.load);
  const withFollowers = new LoadRunner([server], headers, options.write.load);
  await without.unmeasuredRun(Math.max(1, settings.duration / 5));
  const benchCpuSeconds = { without: 0, with: 0 };
  const ownCpu = () => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1e6;
  };
  for (let run = 1; run <= settings.runs; run++) {
    let from0 = ownCpu();
    await without.measure(settings.duration);
    benchCpuSeconds.without += ownCpu() - from0;
    const from = await options.lastSeq();
    const streams = Array.from({ length: FOLLOWERS }, () => openStream(`${changes}?after=${from}`, headers));
    await Promise.all(streams.map((s) => s.opened));
    const polls = Array.from({ length: FOLLOWERS }, () => longPoll(server.url, headers, from));
    from0 = ownCpu();
    await withFollowers.measure(settings.duration);
    benchCpuSeconds.with += ownCpu() - from0;
    streams.forEach((s) => s.close());
    await Promise.all(polls.map((p) => p.close()));
    console.log(`following, run ${run} of ${settings.runs} done`);
  }
  const writes = { name: options.write.name, without: without.figures(), with: withFollowers.figures(), ratio: 0, benchCpuSeconds };
  writes.ratio = writes.with.requestsPerSecond.median / writes.without.requestsPerSecond.median;

  const deliveryMs = await measureDelivery({ streamsOn: [server], headers, writeOne: options.writeOne, lastSeq: options.lastSeq, writes: DELIVERY_WRITES });

  // Catch-up on the longest log: pages of 1,000, then one stream.
  const long = await options.onLongLog();
  try {
    let after = 0;
    const pagesFrom = performance.now();
    while (after < long.events) {
      const res = await fetch(`${long.target.url}/api/changes?after=${after}&limit=1000`, { headers });
      after = ((await res.json()) as { meta: { next: number } }).meta.next;
    }
    const pagesPerSecond = long.events / ((performance.now() - pagesFrom) / 1000);
    const streamFrom = performance.now();
    const stream = openStream(`${long.target.url}/api/changes`, headers);
    await stream.opened;
    while (stream.lastId() < long.events) await new Promise((resolve) => setTimeout(resolve, 10));
    stream.close();
    const streamPerSecond = long.events / ((performance.now() - streamFrom) / 1000);
    const catchUp = { events: long.events, pagesPerSecond, streamPerSecond };
    return { followers: { streams: FOLLOWERS, longPolls: FOLLOWERS }, writes, deliveryMs, idle: idleFigures, catchUp };
  } finally {
    await long.stop();
  }
}

/**
 * One-record writes, one at a time, each timed from its sending to its change's arrival on every one of 100
 * streams, spread over `streamsOn` (the writer's own server, or the servers beside it).
 */
export async function measureDelivery(options: {
  streamsOn: Target[];
  headers: Record<string, string>;
  /** One write of one record; resolves when answered. */
  writeOne: () => Promise<void>;
  lastSeq: () => Promise<number>;
  writes: number;
}): Promise<DeliveryMs> {
  const { streamsOn, headers } = options;
  const start = await options.lastSeq();
  const arrivals = new Map<number, number[]>();
  const streams = Array.from({ length: FOLLOWERS }, (_, i) =>
    openStream(`${streamsOn[i % streamsOn.length].url}/api/changes?after=${start}`, headers, (seq, at) => {
      const list = arrivals.get(seq) ?? [];
      list.push(at);
      arrivals.set(seq, list);
    }),
  );
  try {
    await Promise.all(streams.map((s) => s.opened));
    const delays: number[] = [];
    const answers: number[] = [];
    for (let i = 0; i < options.writes; i++) {
      const sent = performance.now();
      await options.writeOne();
      answers.push(performance.now() - sent);
      const seq = await options.lastSeq();
      const deadline = performance.now() + 10_000;
      while ((arrivals.get(seq)?.length ?? 0) < FOLLOWERS && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      const got = arrivals.get(seq) ?? [];
      if (got.length < FOLLOWERS) throw new Error(`change ${seq} reached ${got.length} of ${FOLLOWERS} streams within 10 s`);
      delays.push(...got.map((at) => at - sent));
    }
    return { writes: options.writes, p50: percentile(delays, 50), p99: percentile(delays, 99), max: Math.max(...delays), writeAnswerP99: percentile(answers, 99) };
  } finally {
    streams.forEach((s) => s.close());
  }
}

/** The phase's figures and the issue's targets judged on them: SQLite's when it ran, each PostgreSQL count of servers'. */
export function feedResults(one: FollowingOneServer | undefined, across: FollowingAcrossServers[]): FeedResults {
  const targets: FeedResults['targets'] = [];
  if (one) {
    const { writes, deliveryMs, idle, catchUp } = one;
    const catchUpPerSecond = Math.max(catchUp.pagesPerSecond, catchUp.streamPerSecond);
    targets.push(
      // A run that answered nothing (a loaded machine) makes no ratio.
      { target: 'writes with 100 streams and 100 long-polls ≥ 0.9× without', value: `${writes.ratio.toFixed(2)}×`, met: Number.isFinite(writes.ratio) && writes.ratio >= 0.9 },
      { target: 'write to delivery on every stream, p99 ≤ 50 ms (SQLite)', value: `${deliveryMs.p99.toFixed(1)} ms`, met: deliveryMs.p99 <= 50 },
      { target: 'an idle stream ≤ 64 KB of the server', value: `${(idle.rssBytesEach / 1024).toFixed(1)} KB`, met: idle.rssBytesEach <= 64 * 1024 },
      // Their heartbeats are their whole cost: 1,000 comments a period.
      { target: 'idle streams take no CPU between changes (server with them − without)', value: `${(idle.cpuMsPerSecond - idle.cpuMsPerSecondWithout).toFixed(1)} ms/s for ${idle.streams}`, met: idle.cpuMsPerSecond - idle.cpuMsPerSecondWithout < 5 },
      { target: 'one consumer catches up ≥ 50,000 changes/s', value: `${Math.round(catchUpPerSecond)}/s`, met: catchUpPerSecond >= 50_000 },
    );
  }
  for (const a of across) {
    targets.push({ target: `write through one server to delivery on every stream of the other${a.servers > 2 ? 's' : ''}, p99 ≤ 250 ms (PostgreSQL, ${a.servers} servers)`, value: `${a.deliveryMs.p99.toFixed(1)} ms`, met: a.deliveryMs.p99 <= 250 });
  }
  return { ...one, ...(across.length > 0 ? { acrossServers: across } : {}), targets };
}

const range = (s: Spread, digits = 0) => `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;

const printDelivery = (d: DeliveryMs, where: string) =>
  console.log(`\nwrite sent → change on each of ${where}, ${d.writes} writes: p50 ${d.p50.toFixed(1)} ms, p99 ${d.p99.toFixed(1)} ms, max ${d.max.toFixed(1)} ms (the write's own answer p99 ${d.writeAnswerP99.toFixed(1)} ms)`);

function printOneServer(f: FollowingOneServer): void {
  console.log(`\n## Following changes (SQLite, ${f.followers.streams} streams and ${f.followers.longPolls} long-polls beside the writes)\n`);
  console.log('| | requests/s | p99 ms | server CPU µs/request | records/s |');
  console.log('|---|---|---|---|---|');
  for (const [label, figures] of [
    [`${f.writes.name}, no followers`, f.writes.without],
    [`${f.writes.name}, followed`, f.writes.with],
  ] as const) {
    console.log(`| ${label} | ${range(figures.requestsPerSecond)} | ${range(figures.p99Ms, 1)} | ${range(figures.cpuUsPerRequest)} | ${figures.recordsPerSecond ? range(figures.recordsPerSecond) : ''} |`);
  }
  printDelivery(f.deliveryMs, `${f.followers.streams} streams`);
  console.log(`bench process's own CPU in the measured runs (the followers' clients, on the server's cores): ${f.writes.benchCpuSeconds.without.toFixed(2)} s without, ${f.writes.benchCpuSeconds.with.toFixed(2)} s followed`);
  console.log(`${f.idle.streams} idle streams: ${(f.idle.rssBytesEach / 1024).toFixed(1)} KB of the server's RSS each; the server's CPU over a heartbeat period ${f.idle.cpuMsPerSecond.toFixed(1)} ms a second with them, ${f.idle.cpuMsPerSecondWithout.toFixed(1)} without`);
  console.log(`catch-up of ${f.catchUp.events} changes by one consumer: ${Math.round(f.catchUp.pagesPerSecond)}/s by pages of 1,000, ${Math.round(f.catchUp.streamPerSecond)}/s by a stream`);
}

export function printFeed(f: FeedResults): void {
  // `writes` is there only when the SQLite phase ran, and then so is the rest of its figures.
  if (f.writes) printOneServer(f as FollowingOneServer);
  for (const a of f.acrossServers ?? []) {
    console.log(`\n## Following changes across ${a.servers} servers on one database (PostgreSQL ${a.postgres})`);
    printDelivery(a.deliveryMs, `${a.streams} streams on the other server${a.servers > 2 ? 's' : ''}, written through the first`);
  }
  console.log('\n| target | this run | met |');
  console.log('|---|---|---|');
  for (const t of f.targets) console.log(`| ${t.target} | ${t.value} | ${t.met ? 'yes' : 'no'} |`);
}
