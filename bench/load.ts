import autocannon, { type Request, type Result } from 'autocannon';
import { type CpuReading, cpuBetween, cpuOf } from './processes.ts';
import { type Spread, spread } from './stats.ts';

/** Connections in all, spread over the servers of a scenario. */
export const CONNECTIONS = 10;

export interface LoadSettings {
  runs: number;
  /** Seconds a run. */
  duration: number;
}

/** What one scenario measured, each figure over every run. */
export interface LoadFigures {
  requestsPerSecond: Spread;
  p99Ms: Spread;
  /** Server CPU time divided by the requests it answered: the figure noise on a shared machine moves least. */
  cpuUsPerRequest: Spread;
  /**
   * The database server's processes' CPU time (PostgreSQL's backends and background processes) divided by the
   * requests: absent on SQLite, whose work is done inside the server process and counted above.
   */
  databaseCpuUsPerRequest?: Spread;
  /** Records written a second (write scenarios only). */
  recordsPerSecond?: Spread;
}

/** One way to load the server: a fixed request, or a sequence (token GET, then POST) per round. */
export interface Load {
  requests: Request[];
  /** Records one full round writes, for write scenarios. */
  recordsPerRound?: number;
}

/** A server under load: where it listens and its process, whose CPU is read from /proc. */
export interface Target {
  url: string;
  pid: number;
}

/** One run's figures. */
interface Sample {
  requestsPerSecond: number;
  p99Ms: number;
  cpuUsPerRequest: number;
  databaseCpuUsPerRequest?: number;
  recordsPerSecond?: number;
}

/** The connections of the `index`-th of `servers` servers: CONNECTIONS in all, as even as they go. */
export const connectionsOf = (index: number, servers: number) => Math.floor(CONNECTIONS / servers) + (index < CONNECTIONS % servers ? 1 : 0);

/**
 * Loads one or more servers of one database from this process (the servers are other ones) with CONNECTIONS
 * connections in all, one autocannon a server, reading the servers' CPU time from /proc around each run (and the
 * database server's, when `databaseCpu` reads it). Runs are taken one at a time so that a caller can interleave
 * the scenarios: a shared machine's load then drifts over all of them alike instead of favouring some.
 */
export class LoadRunner {
  private readonly rounds = { completed: 0 };
  private readonly requests: Request[];
  private readonly samples: Sample[] = [];

  constructor(
    private readonly targets: Target[],
    private readonly headers: Record<string, string>,
    private readonly load: Load,
    private readonly databaseCpu?: () => Promise<CpuReading>,
  ) {
    this.requests = load.requests.map((r, i) => (i === load.requests.length - 1 ? countRounds(r, this.rounds) : r));
  }

  private run(duration: number): Promise<Result[]> {
    return Promise.all(
      this.targets.map((target, i) =>
        autocannon({ url: target.url, connections: connectionsOf(i, this.targets.length), duration, headers: this.headers, requests: this.requests }),
      ),
    );
  }

  /** A run whose figures are thrown away: a warm-up (JIT, caches and connections), or one observed otherwise. */
  async unmeasuredRun(duration: number): Promise<void> {
    await this.run(duration);
  }

  async measure(duration: number): Promise<void> {
    this.rounds.completed = 0;
    const pids = this.targets.map((t) => t.pid);
    const databaseBefore = await this.databaseCpu?.();
    const cpuBefore = cpuOf(pids);
    const started = performance.now();
    const results = await this.run(duration);
    const seconds = (performance.now() - started) / 1000;
    const cpuUsed = cpuBetween(cpuBefore, cpuOf(pids));
    const databaseUsed = databaseBefore && cpuBetween(databaseBefore, await this.databaseCpu!());
    const total = (pick: (r: Result) => number) => results.reduce((sum, r) => sum + pick(r), 0);
    const [errors, non2xx, timeouts, requests] = [total((r) => r.errors), total((r) => r.non2xx), total((r) => r.timeouts), total((r) => r.requests.total)];
    if (errors > 0 || non2xx > 0 || timeouts > 0) {
      throw new Error(`${non2xx} non-2xx answers, ${errors} errors, ${timeouts} timeouts on ${this.targets.map((t) => t.url).join(', ')}${this.load.requests[0].path ?? ''}`);
    }
    this.samples.push({
      requestsPerSecond: requests / seconds,
      // One histogram a server: the slowest server's p99 stands for the run.
      p99Ms: Math.max(...results.map((r) => r.latency.p99)),
      cpuUsPerRequest: (cpuUsed * 1e6) / requests,
      ...(databaseUsed !== undefined ? { databaseCpuUsPerRequest: (databaseUsed * 1e6) / requests } : {}),
      ...(this.load.recordsPerRound ? { recordsPerSecond: (this.rounds.completed * this.load.recordsPerRound) / seconds } : {}),
    });
  }

  figures(): LoadFigures {
    const of = (pick: (s: Sample) => number) => spread(this.samples.map(pick));
    return {
      requestsPerSecond: of((s) => s.requestsPerSecond),
      p99Ms: of((s) => s.p99Ms),
      cpuUsPerRequest: of((s) => s.cpuUsPerRequest),
      ...(this.databaseCpu ? { databaseCpuUsPerRequest: of((s) => s.databaseCpuUsPerRequest!) } : {}),
      ...(this.load.recordsPerRound ? { recordsPerSecond: of((s) => s.recordsPerSecond!) } : {}),
    };
  }
}

/** Counts the rounds whose last request succeeded. */
function countRounds(request: Request, rounds: { completed: number }): Request {
  return {
    ...request,
    onResponse: (status, body, context) => {
      request.onResponse?.(status, body, context);
      if (status === 200) rounds.completed++;
    },
  };
}

/** A write end to end: GET a token, then POST a batch with it. `body` builds a fresh batch each round. */
export function writeLoad(path: string, body: () => string, recordsPerRound: number): Load {
  return {
    recordsPerRound,
    requests: [
      {
        method: 'GET',
        path,
        onResponse: (status, text, context) => {
          if (status === 200) context.token = JSON.parse(text).data.access_token;
        },
      },
      {
        method: 'POST',
        path,
        setupRequest: (request, context) => ({
          ...request,
          headers: { ...request.headers, 'Content-Type': 'application/json', 'X-Access-Token': String(context.token) },
          body: body(),
        }),
      },
    ],
  };
}

/** A read whose path is chosen afresh each request (e.g. a random id). */
export function readLoad(path: () => string, method = 'GET', body?: () => string, headers: Record<string, string> = {}): Load {
  return {
    requests: [
      {
        method,
        setupRequest: (request) => ({
          ...request,
          path: path(),
          headers: { ...request.headers, ...headers, ...(body ? { 'Content-Type': 'application/json' } : {}) },
          ...(body ? { body: body() } : {}),
        }),
      },
    ],
  };
}
