import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { tempDir, until } from '../helpers.ts';
import { HttpClient, runCli, startServer } from '../server-process.ts';

const KEY = 'tb_import_beside_writers_key_0123456789';
const CONTRACTORS = 5000;
const BATCH = 100;

interface Answer {
  status: number;
  ms: number;
}

/** One client writing contractor batches until `stop()` says so; every step (token GET and POST) is timed. */
async function contractorWriter(client: HttpClient, tag: string, stop: () => boolean, answers: Answer[]) {
  for (let i = 0; !stop(); i++) {
    const records = Array.from({ length: BATCH }, (_, n) => ({ type: 'ФЛ', name: `${tag} ${i}-${n}`, contactPerson: tag, phone1: `+7 916 ${String(i).padStart(3, '0')}-${String(n).padStart(4, '0')}` }));
    let started = Date.now();
    const token = await client.request('GET', '/api/add-contractor');
    answers.push({ status: token.status, ms: Date.now() - started });
    if (token.status !== 200) continue;
    started = Date.now();
    const res = await client.request('POST', '/api/add-contractor', JSON.stringify({ contractors: records }), { 'X-Access-Token': token.body.data.access_token });
    answers.push({ status: res.status, ms: Date.now() - started });
  }
}

function contractorFile(dir: string): string {
  const file = path.join(dir, 'contractors.ndjson');
  const lines = Array.from({ length: CONTRACTORS }, (_, i) =>
    JSON.stringify({ type: 'contractor', data: { type: 'ЮЛ', name: `Импорт ${i}`, contactPerson: 'Бухгалтерия', phone1: `+7 495 ${String(i).padStart(7, '0')}`, inn: String(7_700_000_000 + i) } }),
  );
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

test('an import of 5,000 contractors beside four clients writing over HTTP: they take turns, the import is quick and no request waits long or fails', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'shared.db');
  const server = await startServer(file, KEY);
  try {
    const answers: Answer[] = [];
    let importing = true;
    // Bounded however the import goes: the writers stop when it ends, or after 30 s.
    const deadline = Date.now() + 30_000;
    const stop = () => !importing || Date.now() > deadline;
    const writers = [0, 1, 2, 3].map((c) => contractorWriter(new HttpClient(server.url, KEY), `client ${c}`, stop, answers));
    // The writers are under way before the import starts.
    await until(() => answers.length >= 4);
    const started = Date.now();
    const imported = await runCli(file, ['import', contractorFile(dir)]);
    const importMs = Date.now() - started;
    importing = false;
    await Promise.all(writers);

    const slowest = Math.max(...answers.map((a) => a.ms));
    console.log(`import ${importMs} ms; ${answers.length} HTTP requests meanwhile, slowest ${slowest} ms`);
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(`${CONTRACTORS} applied, 0 failed`);
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(answers.length).toBeGreaterThan(40);
    expect(importMs).toBeLessThan(15_000);
    expect(slowest).toBeLessThan(2000);
  } finally {
    await server.stop();
  }
}, 90_000);
