import Database from 'better-sqlite3';
import { expect, test, vi } from 'vitest';
import { testService } from '../../helpers.ts';

const count = (db: Database.Database, table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get();

// The mount-based version, with a real full disk and the server as a process: test/storage/sqlite/faults-of-a-real-disk.test.ts.
test('disk full (a failing write in the group transaction): writes and token requests are 503 ERROR_STORAGE_FULL, nothing applied, reads answer, logged once', async () => {
  const lines: string[] = [];
  const { api, tb } = await testService({ onStorageFault: (line) => lines.push(line) });
  expect((await api.write('/api/add-product-brand', 'brand', [{ name: 'До' }])).status).toBe(200);
  const tokens = await Promise.all([api.token('/api/add-product-brand'), api.token('/api/add-product-brand')]);
  const before = { events: count(tb.db, 'events'), tokens: count(tb.db, 'access_tokens') };
  // The checkpoint row is the group's last write: failing there undoes writes that already succeeded in it.
  const full = vi.spyOn(tb.projections, 'saveCheckpoint').mockImplementation(() => {
    throw new Database.SqliteError('database or disk is full', 'SQLITE_FULL');
  });
  const errors = vi.spyOn(console, 'error');
  try {
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all([
        api.post('/api/add-product-brand', { brand: [{ name: `Первый ${round}` }] }, tokens[0]),
        api.post('/api/add-product-brand', { brand: [{ name: `Второй ${round}` }] }, tokens[1]),
        api.get('/api/add-product-brand'),
      ]);
      for (const answer of answers) {
        expect([answer.status, answer.body.errors[0].code]).toEqual([503, 'ERROR_STORAGE_FULL']);
        expect(answer.body.errors[0].message).toMatch(/disk holding the database is full.*nothing was applied/);
      }
    }
    expect({ events: count(tb.db, 'events'), tokens: count(tb.db, 'access_tokens') }).toEqual(before);
    const read = await api.get('/api/product-brands');
    expect([read.status, read.body.meta.allCount]).toEqual([200, 1]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^storage fault: writes fail: the disk holding the database is full \(SQLITE_FULL/);
    expect(errors).not.toHaveBeenCalled();
  } finally {
    full.mockRestore();
    errors.mockRestore();
  }
  // Space again: the same tokens were never spent.
  expect((await api.post('/api/add-product-brand', { brand: [{ name: 'После' }] }, tokens[0])).status).toBe(200);
  expect((await api.post('/api/add-product-brand', { brand: [{ name: 'Ещё' }] }, tokens[1])).status).toBe(200);
  expect(lines).toEqual([lines[0], 'writes succeed again']);
  expect((await api.get('/api/product-brands')).body.meta.allCount).toBe(3);
});

test('a database that became read-only: writes and token requests are 503 ERROR_STORAGE_READ_ONLY, reads answer', async () => {
  const lines: string[] = [];
  const { api, tb } = await testService({ onStorageFault: (line) => lines.push(line) });
  const token = await api.token('/api/add-product-brand');
  // SQLite refuses every write on this connection with SQLITE_READONLY, as it does on a read-only file.
  tb.db.pragma('query_only = ON');
  const events = count(tb.db, 'events');
  for (const answer of [await api.get('/api/add-product-brand'), await api.post('/api/add-product-brand', { brand: [{ name: 'Нет' }] }, token)]) {
    expect([answer.status, answer.body.errors[0].code]).toEqual([503, 'ERROR_STORAGE_READ_ONLY']);
  }
  expect(count(tb.db, 'events')).toBe(events);
  expect((await api.get('/api/product-brands')).status).toBe(200);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^storage fault: writes fail: the database cannot be written: its file, folder or file system is read-only \(SQLITE_READONLY/);
  tb.db.pragma('query_only = OFF');
  expect((await api.post('/api/add-product-brand', { brand: [{ name: 'Да' }] }, token)).status).toBe(200);
});

test('the OpenAPI document lists the storage faults under every write step, with 503', async () => {
  const { app } = await testService();
  const doc = await (await app.request('/api/openapi.json')).json();
  for (const step of ['get', 'post']) {
    const operation = doc.paths['/api/add-product'][step];
    expect(operation['x-error-codes']).toEqual(expect.arrayContaining(['ERROR_STORAGE_FULL', 'ERROR_STORAGE_READ_ONLY', 'ERROR_STORAGE_IO']));
    expect(operation.responses['503'].description).toContain('ERROR_STORAGE_FULL');
  }
});
