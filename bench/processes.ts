import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cpuTicksOf, peakRssOf } from './stats.ts';

export const ROOT = path.resolve(import.meta.dirname, '..');

/** Clock ticks a second of /proc's CPU times (100 on Linux almost everywhere). */
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system, every thread) the process has used so far. */
export function cpuSeconds(pid: number): number {
  return cpuTicksOf(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')) / TICKS_PER_SECOND;
}

/** CPU seconds (user + system) of each of a set of processes, by pid. */
export type CpuReading = Map<number, number>;

/** The CPU seconds of each of `pids` now; a process that has exited since it was listed is left out. */
export function cpuOf(pids: Iterable<number>): CpuReading {
  const reading: CpuReading = new Map();
  for (const pid of pids) {
    try {
      reading.set(pid, cpuSeconds(pid));
    } catch {
      // exited since it was listed
    }
  }
  return reading;
}

/**
 * The CPU the processes read in `after` used since `before`. A process first read in `after` counts from its
 * start; one read only in `before` (it exited) is lost, with what it used meanwhile.
 */
export function cpuBetween(before: CpuReading, after: CpuReading): number {
  let used = 0;
  for (const [pid, seconds] of after) used += seconds - (before.get(pid) ?? 0);
  return used;
}

/** A process the bench started and measures from outside. */
export interface Child {
  process: ChildProcess;
  pid: number;
  output: () => string;
  stop: () => Promise<void>;
}

/** The server's entry point, as `npm start` runs it. */
export const SERVER_SCRIPT = 'bin/server.mjs';

/**
 * The Node options `npm start` runs the server with: package.json's start script must read
 * `[exec] node [options] bin/server.mjs`, so the bench serves exactly as `npm start` does.
 */
export function npmStartNodeOptions(startScript: string): string[] {
  const all = startScript.trim().split(/\s+/);
  const words = all[0] === 'exec' ? all.slice(1) : all;
  if (words[0] !== 'node' || words.at(-1) !== SERVER_SCRIPT || words.slice(1, -1).some((w) => !w.startsWith('--'))) {
    throw new Error(`the start script is not "[exec] node [options] ${SERVER_SCRIPT}": ${startScript}`);
  }
  return words.slice(1, -1);
}

/** The Node options of this repository's own start script. */
export const serverNodeOptions = () => npmStartNodeOptions(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start);

/** Processes started by this run: each writes a log of its own. */
let processesStarted = 0;

/** Characters of a process's output kept for its error messages. */
const OUTPUT_KEPT = 1 << 16;

/**
 * Starts `script` under Node. Its standard output goes to a file of its own (`bench/data/<script name>-<n>.log`), as a service's
 * log goes to journald or a file: the server logs a line a request, and a pipe read by the bench process would
 * take the load generator's CPU. Standard error is kept, its last characters only.
 */
export function startProcess(script: string, args: string[], env: Record<string, string>, nodeOptions: string[] = []): Child {
  const logFile = path.join(ROOT, 'bench', 'data', `${path.basename(script)}-${++processesStarted}.log`);
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const log = fs.openSync(logFile, 'w');
  const child = spawn(process.execPath, [...nodeOptions, path.join(ROOT, script), ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', log, 'pipe'] });
  fs.closeSync(log);
  let errors = '';
  child.stderr!.on('data', (d: Buffer) => {
    errors = (errors + d).slice(-OUTPUT_KEPT);
  });
  const output = () => {
    const size = fs.statSync(logFile).size;
    const fd = fs.openSync(logFile, 'r');
    try {
      const tail = Buffer.alloc(Math.min(size, OUTPUT_KEPT));
      fs.readSync(fd, tail, 0, tail.length, size - tail.length);
      return tail.toString('utf8') + errors;
    } finally {
      fs.closeSync(fd);
    }
  };
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    process: child,
    pid: child.pid!,
    output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Polls `url` until it answers 200; returns the milliseconds since `since`. Throws when the process exits first. */
export async function waitUntilAnswering(child: Child, url: string, headers: Record<string, string>, since: number, timeoutMs = 60_000): Promise<number> {
  for (;;) {
    const { exitCode, signalCode } = child.process;
    if (exitCode !== null || signalCode !== null) throw new Error(`the process exited (${exitCode ?? signalCode}) before answering:\n${child.output()}`);
    try {
      const res = await fetch(url, { headers });
      if (res.status === 200) {
        await res.arrayBuffer();
        return performance.now() - since;
      }
    } catch {
      // not listening yet
    }
    if (performance.now() - since > timeoutMs) throw new Error(`no answer from ${url} within ${timeoutMs} ms:\n${child.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Runs a command line process to its end, sampling its peak RSS (VmHWM only grows) and its CPU from /proc as it
 * goes. `cpuSeconds` is its last sample (every thread's user + system; up to one interval short): unlike `seconds`,
 * other work on a shared machine barely moves it.
 */
export async function runMeasured(script: string, args: string[], env: Record<string, string>): Promise<{ code: number; output: string; seconds: number; cpuSeconds: number; peakRss: number }> {
  const started = performance.now();
  const child = startProcess(script, args, env);
  let peakRss = 0;
  let cpu = 0;
  const sample = () => {
    try {
      peakRss = Math.max(peakRss, peakRssOf(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8')) ?? 0);
      cpu = cpuSeconds(child.pid);
    } catch {
      // the process has just exited
    }
  };
  const timer = setInterval(sample, 20);
  const code = await new Promise<number>((resolve) => child.process.once('exit', (c) => resolve(c ?? 1)));
  clearInterval(timer);
  return { code, output: child.output(), seconds: (performance.now() - started) / 1000, cpuSeconds: cpu, peakRss };
}
