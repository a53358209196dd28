import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { importRun } from '../../src/use-cases/import-run.ts';
import { line, romashka } from '../documents-fixtures.ts';
import { testService } from '../helpers.ts';
import { Browser } from '../workbench-client.ts';

const text = [line('contractor', romashka), 'not json', line('product_brand', { name: 'Заря' })].map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
const sha256 = createHash('sha256').update(text).digest('hex');

/** A company with one recorded import run of `text`, made by `ivanov` with a note. */
async function imported() {
  const service = await testService();
  const failed: number[] = [];
  const report = await importRun(service.tb, Readable.from([Buffer.from(text)]), { file: 'export-2026-11.ndjson', user: 'ivanov', note: 'ноябрь' }, (f) => failed.push(f.line));
  return { ...service, report, failed };
}

describe('an import run', () => {
  test('is recorded in its own stream: who, the note, the file, its size and SHA-256 as read, and what it did', async () => {
    const { tb, report, failed } = await imported();
    expect(failed).toEqual([2]);
    expect(report).toEqual({ lines: 3, applied: 2, failed: 1, events: 2, run: expect.stringMatching(/^\d{16}$/) });
    const [recorded] = await tb.audit.streamVersions(`import-${report.run}`, 1, 1);
    expect(recorded.type).toBe('ImportRunRecorded');
    expect(recorded.data).toEqual({
      runId: report.run,
      user: 'ivanov',
      note: 'ноябрь',
      file: 'export-2026-11.ndjson',
      size: Buffer.byteLength(text),
      sha256,
      started: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      lines: 3,
      applied: 2,
      failed: 1,
      events: 2,
    });
    expect(recorded.meta).toEqual({ source: 'import', importRun: report.run });
  });

  test('names itself in the meta of every event it appended, beside the line', async () => {
    const { tb, report } = await imported();
    const rows = await tb.audit.eventsAfter(0, 100);
    const metas = rows.filter((row) => row.stream !== `import-${report.run}`).map((row) => JSON.parse(row.meta));
    expect(metas.map((meta) => meta.importLine)).toEqual(expect.arrayContaining([1, 3]));
    for (const meta of metas) expect(meta).toEqual({ source: 'import', importLine: expect.any(Number), importRun: report.run });
  });

  test('a history, and the workbench’s log, name the file, its digest, when and by whom, and the line', async () => {
    const { tb, app, report } = await imported();
    const [added] = await tb.audit.history('contractor-7', 1, 1);
    expect(added.who).toMatch(new RegExp(`^import of file export-2026-11\\.ndjson \\(SHA-256 ${sha256}\\) on \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} by ivanov, line 1$`));
    const { key } = await tb.keys.create({ name: 'auditor', scope: 'audit' });
    const russian = new Browser(app, { 'Accept-Language': 'ru' });
    await russian.signIn(key);
    const page = (await russian.get('/audit/log')).text;
    expect(page).toMatch(new RegExp(`импорт файла export-2026-11\\.ndjson \\(SHA-256 ${sha256}\\) от \\d{2}\\.\\d{2}\\.\\d{4} \\d{2}:\\d{2}:\\d{2}, ivanov, строка 1`));
    // The run's own record has its page, as every record has, its fields named in the reader's words.
    const runPage = await russian.get(`/audit/record?stream=import-${report.run}`);
    expect(runPage.status).toBe(200);
    expect(runPage.text).toContain(`<th>SHA-256 <code>sha256</code></th><td>${sha256}</td>`);
    expect(runPage.text).toContain('<th>Файл <code>file</code></th><td>export-2026-11.ndjson</td>');
  });

  test('a file that fails to read midway fails the import (the error reaches it), and records no run', async () => {
    const { tb } = await testService();
    const failing = new Readable({
      read() {
        this.push(Buffer.from(`${JSON.stringify(line('product_brand', { name: 'Заря' }))}\n`));
        this.destroy(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' }));
      },
    });
    await expect(importRun(tb, failing, { file: 'f.ndjson', user: 'u', note: null }, () => {})).rejects.toThrow(/EIO/);
    expect((await tb.audit.eventsAfter(0, 10)).filter((row) => row.type === 'ImportRunRecorded')).toEqual([]);
  });
});
