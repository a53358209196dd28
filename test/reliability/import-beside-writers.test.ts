import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { tempDir, until } from '../helpers.ts';
import { openPostgres } from '../../src/storage/postgres/connection.ts';
import { HttpClient, type Response, runCli, startServer } from '../server-process.ts';
import { REAL_SERVER_URL, createDatabase } from '../storage/postgres/engines.ts';

const KEY = 'tb_import_beside_writers_key_0123456789';
const CONTRACTORS = 5000;
const BATCH = 100;

interface Answer {
  /** The request's `X-Request-Id`, which names its line in the server's access log. */
  id: string;
  status: number;
  started: number;
  ms: number;
}

/** One client writing contractor batches until `stop()` says so; every step (token GET and POST) is timed. */
async function contractorWriter(client: HttpClient, tag: string, stop: () => boolean, answers: Answer[]) {
  for (let i = 0; !stop(); i++) {
    const records = Array.from({ length: BATCH }, (_, n) => ({ type: 'ФЛ', name: `${tag} ${i}-${n}`, contactPerson: tag, phone1: `+7 916 ${String(i).padStart(3, '0')}-${String(n).padStart(4, '0')}` }));
    const name = `${tag.replace(' ', '-')}.${i}`;
    const timed = async (id: string, request: (headers: Record<string, string>) => Promise<Response>) => {
      const started = Date.now();
      const answer = await request({ 'X-Request-Id': id });
      answers.push({ id, status: answer.status, started, ms: Date.now() - started });
      return answer;
    };
    const token = await timed(`${name}.token`, (headers) => client.request('GET', '/api/add-contractor', undefined, headers));
    if (token.status !== 200) continue;
    const body = JSON.stringify({ contractors: records });
    await timed(`${name}.write`, (headers) => client.request('POST', '/api/add-contractor', body, { 'X-Access-Token': token.body.data.access_token, ...headers }));
  }
}

/** The slowest of `answers`, when it was sent (ms after the import started), and how long the server took over it (its access log's `ms`). */
function slowestOf(answers: Answer[], importStarted: number, serverOutput: string): { ms: number; said: string } {
  if (answers.length === 0) return { ms: 0, said: 'no request was sent during the import' };
  const slowest = answers.reduce((a, b) => (b.ms > a.ms ? b : a));
  const line = serverOutput.split('\n').find((l) => l.includes(`"reqId":"${slowest.id}"`));
  const serverMs = line === undefined ? 'not logged' : `${JSON.parse(line).ms} ms`;
  return { ms: slowest.ms, said: `slowest ${slowest.ms} ms: ${slowest.id}, sent ${slowest.started - importStarted} ms after the import started, ${serverMs} in the server` };
}

/** Ids in descending order, as another system may export them, far above the writers' (each line's id below the last). */
function contractorFile(dir: string): string {
  const file = path.join(dir, 'contractors.ndjson');
  const lines = Array.from({ length: CONTRACTORS }, (_, i) =>
    JSON.stringify({ type: 'contractor', data: { id: 1_000_000 + CONTRACTORS - i, type: 'ЮЛ', name: `Импорт ${i}`, contactPerson: 'Бухгалтерия', phone1: `+7 495 ${String(i).padStart(7, '0')}`, inn: String(7_700_000_000 + i) } }),
  );
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** The import beside the writers on the database `setting` names (a file or a PostgreSQL URL). */
async function importBesideWriters(setting: string, dir: string) {
  // Written before the writers start: making it holds this process's event loop, the clients' timers with it.
  const file = contractorFile(dir);
  const server = await startServer(setting, KEY);
  try {
    const answers: Answer[] = [];
    let importing = true;
    // Bounded however the import goes: the writers stop when it ends, or after 30 s.
    const deadline = Date.now() + 30_000;
    const stop = () => !importing || Date.now() > deadline;
    const writers = [0, 1, 2, 3].map((c) => contractorWriter(new HttpClient(server.url, KEY), `client ${c}`, stop, answers));
    // The writers are under way before the import starts: each has had a write answered, so the server's first
    // writes (its code not yet compiled, measured at 300 ms alone) are not taken for waits behind the import.
    await until(() => new Set(answers.filter((a) => a.id.endsWith('.write')).map((a) => a.id.split('.')[0])).size === 4);
    const started = Date.now();
    const imported = await runCli(setting, ['import', file]);
    const importMs = Date.now() - started;
    importing = false;
    await Promise.all(writers);

    const slowest = slowestOf(
      answers.filter((a) => a.started >= started),
      started,
      server.output(),
    );
    console.log(`import ${importMs} ms; ${answers.length} HTTP requests meanwhile, ${slowest.said}`);
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(`${CONTRACTORS} applied, 0 failed`);
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(answers.length).toBeGreaterThan(40);
    expect(importMs).toBeLessThan(15_000);
    expect(slowest.ms, slowest.said).toBeLessThan(2000);
  } finally {
    await server.stop();
  }
}

const TITLE = 'an import of 5,000 contractors in descending id order beside four clients writing over HTTP: they take turns, the import is quick and no request waits long or fails';

test(TITLE, async () => {
  const dir = tempDir();
  await importBesideWriters(path.join(dir, 'shared.db'), dir);
}, 90_000);

test.runIf(REAL_SERVER_URL)(`${TITLE} (PostgreSQL)`, async () => {
  const admin = openPostgres(REAL_SERVER_URL!, { poolSize: 1 });
  const database = await createDatabase(admin);
  try {
    await importBesideWriters(database.url, tempDir());
  } finally {
    await database.drop();
    await admin.close();
  }
}, 90_000);
