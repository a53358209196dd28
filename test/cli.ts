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
