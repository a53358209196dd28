/**
 * Crash safety under sustained write load: starts the real server, drives token + batch writes from several
 * clients, SIGKILLs the server at a random moment, restarts it on the same database, and checks that every
 * acknowledged batch is fully present, no batch is partly present, `tradebook verify` passes and the server starts
 * without repair. `node --import tsx scripts/crash-test.ts [--rounds N] [--clients N] [--max-run-ms N]`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { HttpClient, runCli, startServer } from '../test/server-process.ts';

export interface CrashTestOptions {
  rounds: number;
  clients: number;
  /** Each round runs for a random time up to this before the kill. */
  maxRunMs: number;
  log?: (line: string) => void;
}

export interface CrashTestReport {
  rounds: number;
  /** Batches answered 200. */
  acknowledged: number;
  /** Acknowledged batches found whole after the restarts. */
  found: number;
  /** Batches sent without an answer (the kill cut them) that were applied whole anyway. */
  unansweredApplied: number;
  problems: string[];
}

const KEY = 'tb_crash_test_key_0123456789abcdef';
const RECORDS_PER_BATCH = 3;

export async function crashTest(options: CrashTestOptions): Promise<CrashTestReport> {
  const log = options.log ?? (() => {});
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradebook-crash-'));
  const file = path.join(dir, 'crash.db');
  const acknowledged: string[][] = [];
  const unanswered: string[][] = [];
  const problems: string[] = [];
  try {
    for (let round = 1; round <= options.rounds; round++) {
      const server = await startServer(file, KEY);
      let running = true;
      const client = async (c: number) => {
        const http = new HttpClient(server.url, KEY);
        for (let i = 0; running; i++) {
          const names = Array.from({ length: RECORDS_PER_BATCH }, (_, k) => `r${round}-c${c}-b${i}-${k}`);
          try {
            const res = await http.write('/api/add-product-brand', 'brand', names.map((name) => ({ name })));
            if (res.status === 200) acknowledged.push(names);
            else problems.push(`round ${round}: batch answered ${res.status} ${res.text}`);
          } catch {
            unanswered.push(names); // the server died with the batch in flight
            return;
          }
        }
      };
      const loops = Array.from({ length: options.clients }, (_, c) => client(c));
      await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * options.maxRunMs));
      server.child.kill('SIGKILL');
      await server.exited;
      running = false;
      await Promise.all(loops);
      problems.push(...checkBatches(file, acknowledged, unanswered).problems.map((p) => `round ${round}: ${p}`));
      const verified = await runCli(file, ['verify']);
      if (verified.status !== 0) problems.push(`round ${round}: tradebook verify failed: ${verified.stdout}${verified.stderr}`);
      log(`round ${round}: ${acknowledged.length} batches acknowledged so far`);
    }
    // The last crash must also leave a database the server opens without repair.
    const server = await startServer(file, KEY);
    const answer = await new HttpClient(server.url, KEY).request('GET', '/api/product-brands');
    if (answer.status !== 200) problems.push(`restart: brand list answered ${answer.status}`);
    await server.stop();
    const check = checkBatches(file, acknowledged, unanswered);
    return { rounds: options.rounds, acknowledged: acknowledged.length, found: check.found, unansweredApplied: check.unansweredApplied, problems: [...problems, ...check.problems] };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Every acknowledged batch whole; every batch either whole or absent. */
function checkBatches(file: string, acknowledged: string[][], unanswered: string[][]) {
  const db = new Database(file, { readonly: true });
  const stored = new Set(db.prepare("SELECT json_extract(data, '$.name') FROM events WHERE type = 'BrandAdded'").pluck().all());
  db.close();
  const problems: string[] = [];
  const present = (names: string[]) => names.filter((n) => stored.has(n)).length;
  let found = 0;
  for (const names of acknowledged) {
    if (present(names) === names.length) found++;
    else problems.push(`acknowledged batch ${names[0]} has ${present(names)} of ${names.length} records`);
  }
  let unansweredApplied = 0;
  for (const names of unanswered) {
    const n = present(names);
    if (n === names.length) unansweredApplied++;
    else if (n !== 0) problems.push(`batch ${names[0]} is partly present: ${n} of ${names.length} records`);
  }
  return { found, unansweredApplied, problems };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20' }, clients: { type: 'string', default: '4' }, 'max-run-ms': { type: 'string', default: '3000' } } });
  const report = await crashTest({
    rounds: Number(values.rounds),
    clients: Number(values.clients),
    maxRunMs: Number(values['max-run-ms']),
    log: (line) => console.log(line),
  });
  console.log(`rounds ${report.rounds}, batches acknowledged ${report.acknowledged}, acknowledged found ${report.found}, unanswered but applied ${report.unansweredApplied}`);
  for (const p of report.problems) console.log(`PROBLEM: ${p}`);
  process.exitCode = report.problems.length === 0 && report.found === report.acknowledged ? 0 : 1;
}
