import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { openSqliteCompany, tempDir } from '../helpers.ts';
import { runCliHere as cli } from '../cli-in-process.ts';
import { runCli } from '../server-process.ts';
import { dumpReadTables } from '../read-tables.ts';

describe('tradebook keys', () => {
  test('create prints the key alone on the last line; list never shows it; revoke marks it', async () => {
    const db = path.join(tempDir(), 't.db');
    const created = await cli(db, ['keys', 'create', '--name', 'accounting', '--scope', 'audit', '--expires', '2030-01-01 00:00:00']);
    expect(created.status).toBe(0);
    const key = created.stdout.trim().split('\n').pop()!;
    expect(key).toMatch(/^tb_\w{40}$/);
    const listed = await cli(db, ['keys', 'list', '--json']);
    const keys = JSON.parse(listed.stdout);
    expect(keys).toEqual([{ id: 1, name: 'accounting', scope: 'audit', created: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\+03:00$/), expires: '2030-01-01 00:00:00+03:00', revoked: null, state: 'active' }]);
    expect(listed.stdout + (await cli(db, ['keys', 'list'])).stdout).not.toContain(key);
    expect((await cli(db, ['keys', 'revoke', '1'])).status).toBe(0);
    expect(JSON.parse((await cli(db, ['keys', 'list', '--json'])).stdout)[0]).toMatchObject({ revoked: expect.any(String), state: 'revoked' });
  });

  test('bad arguments exit non-zero with a clear message', async () => {
    const db = path.join(tempDir(), 't.db');
    expect((await cli(db, ['keys', 'create', '--scope', 'root'])).stderr).toContain('--scope takes api or audit');
    expect((await cli(db, ['keys', 'create', '--expires', 'tomorrow'])).status).toBe(2);
    expect((await cli(db, ['keys', 'create'])).status).toBe(0);
    const missing = await cli(db, ['keys', 'revoke', '7']);
    expect([missing.status, missing.stderr]).toEqual([2, 'tradebook: no key 7\n']);
  });
});

describe('tradebook import, events and rebuild', () => {
  const lines = [
    { type: 'product_category', data: { name: 'Напитки' } },
    { type: 'product_category', data: { name: 'Соки', parent: 1 } },
    { type: 'product_brand', data: { name: 'Сад', logo: 'sad.png' } },
    { type: 'product', data: { name: 'Сок', sku: 'J1', categoryId: 2, brandId: 1, salePrice: 120, files: ['a.jpg'], additionalFields: [{ name: 'Объём', value: '1 л' }] } },
    { type: 'product', data: { id: 40, name: 'Вода', sku: 'W1', categoryId: 1 } },
  ];

  test('imports catalogue lines; bad lines are reported with their number and the rest go in; re-import appends nothing', async () => {
    const dir = tempDir();
    const db = path.join(dir, 't.db');
    const file = path.join(dir, 'in.ndjson');
    const bad = ['not json', JSON.stringify({ type: 'spaceship', data: {} }), JSON.stringify({ type: 'product', data: { name: 'x', sku: 'J1', categoryId: 9 } })];
    fs.writeFileSync(file, [...lines.map((l) => JSON.stringify(l)), ...bad, ''].join('\n'));
    const first = await cli(db, ['import', file]);
    expect(first.status).toBe(1);
    expect(first.stderr).toContain('line 6: ERROR_LINE');
    expect(first.stderr).toContain('line 7: ERROR_TYPE');
    expect(first.stderr).toContain('line 8: ERROR_CATEGORY_ID (categoryId)');
    expect(first.stdout).toContain('5 applied, 3 failed');
    const events = (await cli(db, ['events'])).stdout.trim().split('\n').map((l) => JSON.parse(l));
    // The five records, then the import run's own record.
    expect(events.map((e) => e.type)).toEqual(['CategoryAdded', 'CategoryAdded', 'BrandAdded', 'ProductAdded', 'ProductAdded', 'ImportRunRecorded']);
    expect(events[4]).toMatchObject({ seq: 5, stream: 'product-40', meta: { source: 'import', importLine: 5, importRun: events[5].data.runId } });

    const again = await cli(db, ['import', '-'], lines.map((l) => JSON.stringify(l)).join('\n'));
    expect([again.status, again.stdout.trim()]).toEqual([0, '5 lines: 5 applied, 0 failed, 0 events appended']);
    expect((await cli(db, ['events', '--after', '3'])).stdout.trim().split('\n')).toHaveLength(3);
    expect((await cli(db, ['events', '--stream', 'product-40'])).stdout.trim().split('\n')).toHaveLength(1);
  });

  test('a line whose type names an Object property is ERROR_TYPE on its line, without a crash; the other lines go in', async () => {
    const db = path.join(tempDir(), 't.db');
    const inherited = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
    const input = [{ type: 'product_brand', data: { name: 'A' } }, ...inherited.map((type) => ({ type, data: {} })), { type: 'product_brand', data: { name: 'B' } }];
    const run = await cli(db, ['import', '-'], input.map((l) => JSON.stringify(l)).join('\n'));
    expect(run.status).toBe(1);
    expect(run.stdout.trim()).toMatch(/^7 lines: 2 applied, 5 failed, 2 events appended \(import run \d{16}\)$/);
    expect(run.stderr.trim().split('\n')).toEqual(inherited.map((type, i) => `line ${i + 2}: ERROR_TYPE (type): unknown line type "${type}"`));
    const events = (await cli(db, ['events'])).stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(events.map((e) => [e.type, e.data.name])).toEqual([['BrandAdded', 'A'], ['BrandAdded', 'B'], ['ImportRunRecorded', undefined]]);
  });

  test('rebuild drops and rebuilds every read table to the same rows', async () => {
    const dir = tempDir();
    const db = path.join(dir, 't.db');
    await cli(db, ['import', '-'], lines.map((l) => JSON.stringify(l)).join('\n'));
    const before = await openSqliteCompany(db);
    const live = dumpReadTables(before.db);
    before.close();
    // The rebuild runs on a thread the bundle starts: as a process.
    const rebuilt = await runCli(db, ['rebuild']);
    expect(rebuilt.status).toBe(0);
    expect(rebuilt.stdout).toMatch(/rebuilt every projection from 6 events/);
    const after = await openSqliteCompany(db);
    expect(dumpReadTables(after.db)).toEqual(live);
    after.close();
  });
});
