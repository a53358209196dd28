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

/**
 * Loads the server from this process (the server is another one) with CONNECTIONS connections, after a short
 * warm-up run, and reads the server's CPU time from /proc around each run.
 */
export async function measureLoad(url: string, serverPid: number, headers: Record<string, string>, load: Load, settings: LoadSettings): Promise<LoadFigures> {
  const rounds = { completed: 0 };
  const requests = load.requests.map((r, i) => (i === load.requests.length - 1 ? countRounds(r, rounds) : r));
  const run = (duration: number) => autocannon({ url, connections: CONNECTIONS, duration, headers, requests });
  await run(Math.max(1, settings.duration / 5));
  const rps: number[] = [];
  const p99: number[] = [];
  const cpu: number[] = [];
  const records: number[] = [];
  for (let i = 0; i < settings.runs; i++) {
    rounds.completed = 0;
    const cpuBefore = cpuSeconds(serverPid);
    const started = performance.now();
    const result = await run(settings.duration);
    const seconds = (performance.now() - started) / 1000;
    const cpuUsed = cpuSeconds(serverPid) - cpuBefore;
    if (result.errors > 0 || result.non2xx > 0 || result.timeouts > 0) {
      throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts on ${url}${load.requests[0].path ?? ''}`);
    }
    rps.push(result.requests.total / seconds);
    p99.push(result.latency.p99);
    cpu.push((cpuUsed * 1e6) / result.requests.total);
    if (load.recordsPerRound) records.push((rounds.completed * load.recordsPerRound) / seconds);
  }
  return {
    requestsPerSecond: spread(rps),
    p99Ms: spread(p99),
    cpuUsPerRequest: spread(cpu),
    ...(load.recordsPerRound ? { recordsPerSecond: spread(records) } : {}),
  };
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
export function readLoad(path: () => string, method = 'GET', body?: () => string): Load {
  return {
    requests: [
      {
        method,
        setupRequest: (request) => ({
          ...request,
          path: path(),
          ...(body ? { body: body(), headers: { ...request.headers, 'Content-Type': 'application/json' } } : {}),
        }),
      },
    ],
  };
}
