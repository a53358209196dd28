import autocannon, { type Request } from 'autocannon';
import { cpuSeconds } from './processes.ts';
import { type Spread, spread } from './stats.ts';

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
  /** Records written a second (write scenarios only). */
  recordsPerSecond?: Spread;
}

/** One way to load the server: a fixed request, or a sequence (token GET, then POST) per round. */
export interface Load {
  requests: Request[];
  /** Records one full round writes, for write scenarios. */
  recordsPerRound?: number;
}

/** One run's figures. */
interface Sample {
  requestsPerSecond: number;
  p99Ms: number;
  cpuUsPerRequest: number;
  recordsPerSecond?: number;
}

/**
 * Loads one server from this process (the server is another one) with CONNECTIONS connections, reading the
 * server's CPU time from /proc around each run. Runs are taken one at a time so that a caller can interleave
 * the scenarios: a shared machine's load then drifts over all of them alike instead of favouring some.
 */
export class LoadRunner {
  private readonly rounds = { completed: 0 };
  private readonly requests: Request[];
  private readonly samples: Sample[] = [];

  constructor(
    private readonly url: string,
    private readonly serverPid: number,
    private readonly headers: Record<string, string>,
    private readonly load: Load,
  ) {
    this.requests = load.requests.map((r, i) => (i === load.requests.length - 1 ? countRounds(r, this.rounds) : r));
  }

  private run(duration: number) {
    return autocannon({ url: this.url, connections: CONNECTIONS, duration, headers: this.headers, requests: this.requests });
  }

  /** A run whose figures are thrown away: JIT, caches and connections warm up. */
  async warmUp(duration: number): Promise<void> {
    await this.run(duration);
  }

  async measure(duration: number): Promise<void> {
    this.rounds.completed = 0;
    const cpuBefore = cpuSeconds(this.serverPid);
    const started = performance.now();
    const result = await this.run(duration);
    const seconds = (performance.now() - started) / 1000;
    const cpuUsed = cpuSeconds(this.serverPid) - cpuBefore;
    if (result.errors > 0 || result.non2xx > 0 || result.timeouts > 0) {
      throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts on ${this.url}${this.load.requests[0].path ?? ''}`);
    }
    this.samples.push({
      requestsPerSecond: result.requests.total / seconds,
      p99Ms: result.latency.p99,
      cpuUsPerRequest: (cpuUsed * 1e6) / result.requests.total,
      ...(this.load.recordsPerRound ? { recordsPerSecond: (this.rounds.completed * this.load.recordsPerRound) / seconds } : {}),
    });
  }

  figures(): LoadFigures {
    const of = (pick: (s: Sample) => number) => spread(this.samples.map(pick));
    return {
      requestsPerSecond: of((s) => s.requestsPerSecond),
      p99Ms: of((s) => s.p99Ms),
      cpuUsPerRequest: of((s) => s.cpuUsPerRequest),
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
