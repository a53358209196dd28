import { type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

const BIN = path.resolve(import.meta.dirname, '../bin/tradebook.mjs');

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `tradebook ARGS` as a process on the database `file`, the way an operator does. */
export function runCli(file: string, args: string[], input?: string): CliRun {
  const run: SpawnSyncReturns<string> = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, TRADEBOOK_DB: file },
    encoding: 'utf8',
    input,
    timeout: 120_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Starts `tradebook ARGS` without waiting for it (to interrupt it). */
export function spawnCli(file: string, args: string[]) {
  return spawn(process.execPath, [BIN, ...args], { env: { ...process.env, TRADEBOOK_DB: file }, stdio: ['ignore', 'pipe', 'pipe'] });
}

const SERVER = path.resolve(import.meta.dirname, '../bin/server.mjs');

/** Starts `npm start`'s server on the database `file` on a free port; resolves once it listens. */
export async function startServer(file: string, env: Record<string, string> = {}): Promise<{ url: string; output: () => string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [SERVER], { env: { ...process.env, TRADEBOOK_DB: file, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /listening on port (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
