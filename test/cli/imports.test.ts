import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { line, romashka } from '../documents-fixtures.ts';
import { tempDir } from '../helpers.ts';
import { runCliHere as cli } from '../cli-in-process.ts';

test('tradebook imports lists each run: id, when, who, note, file, size, SHA-256, lines, events', async () => {
  const dir = tempDir();
  const db = path.join(dir, 't.db');
  const text = `${JSON.stringify(line('contractor', romashka))}\n{broken\n`;
  const file = path.join(dir, 'contractors.ndjson');
  fs.writeFileSync(file, text);
  const first = await cli(db, ['import', file, '--note', 'первая выгрузка']);
  expect(first.status).toBe(1);
  const run = /\(import run (\d{16})\)\n$/.exec(first.stdout)?.[1];
  expect(run).toBeDefined();
  const brand = `${JSON.stringify(line('product_brand', { name: 'Заря' }))}\n`;
  const piped = JSON.parse((await cli(db, ['import', '-', '--json'], brand)).stdout);

  // The same file again appends nothing, and a run that appended nothing is not recorded (decisions.md §6).
  const again = await cli(db, ['import', file]);
  expect(again.stdout).toBe('2 lines: 1 applied, 1 failed, 0 events appended\n');
  const listed = JSON.parse((await cli(db, ['imports', '--json'])).stdout);
  const user = os.userInfo().username;
  const digest = (content: string) => createHash('sha256').update(content).digest('hex');
  expect(listed).toEqual([
    { runId: run, user, note: 'первая выгрузка', file: 'contractors.ndjson', size: Buffer.byteLength(text), sha256: digest(text), started: expect.any(String), lines: 2, applied: 1, failed: 1, events: 1, recorded: expect.stringMatching(/\+03:00$/) },
    { runId: piped.run, user, note: null, file: '-', size: Buffer.byteLength(brand), sha256: digest(brand), started: expect.any(String), lines: 1, applied: 1, failed: 0, events: 1, recorded: expect.any(String) },
  ]);

  const table = (await cli(db, ['imports'])).stdout.trim().split('\n');
  expect(table[0].split(/ {2,}/)).toEqual(['ID', 'WHEN', 'WHO', 'NOTE', 'FILE', 'SIZE', 'SHA256', 'LINES', 'EVENTS']);
  expect(table[1].split(/ {2,}/)).toEqual([run, listed[0].recorded, user, 'первая выгрузка', 'contractors.ndjson', String(Buffer.byteLength(text)), digest(text), '2 (1 failed)', '1']);
  // The imported events name their run; the run is an event of its own.
  const events = (await cli(db, ['events'])).stdout.trim().split('\n').map((l) => JSON.parse(l));
  expect(events.filter((e) => e.stream === 'contractor-7').map((e) => e.meta)).toEqual([{ source: 'import', importLine: 1, importRun: run }]);
  expect(events.filter((e) => e.type === 'ImportRunRecorded').map((e) => e.stream)).toEqual([`import-${run}`, `import-${piped.run}`]);
  expect((await cli(db, ['history', 'contractor-7'])).stdout).toContain(`import of file contractors.ndjson (SHA-256 ${digest(text)})`);
});
