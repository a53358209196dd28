import { expect, test } from 'vitest';
import { openSqlite } from '../../../src/storage/sqlite/open.ts';
import { StorageBusyError } from '../../../src/storage/errors.ts';
import { retryWhileBusy } from '../../../src/storage/sqlite/busy.ts';
import { testService } from '../../helpers.ts';

test('while another connection holds the write lock, a write waits without blocking reads, then lands', async () => {
  const { api, tb, file } = await testService();
  tb.db.pragma('busy_timeout = 0');
  const token = await api.token('/api/add-product-brand');
  const other = openSqlite(file);
  other.exec('BEGIN IMMEDIATE');
  const write = api.post('/api/add-product-brand', { brand: [{ name: 'Позже' }] }, token);
  // The event loop is free: a read is answered while the write waits for the lock.
  const read = await api.get('/api/product-brands');
  expect(read.body.meta.allCount).toBe(0);
  other.exec('COMMIT');
  other.close();
  expect((await write).status).toBe(200);
  expect((await api.get('/api/product-brands')).body.meta.allCount).toBe(1);
});

test('a lock held past the budget gives up with StorageBusyError (answered 503 ERROR_BUSY) and applies nothing', async () => {
  const { tb, file } = await testService();
  tb.db.pragma('busy_timeout = 0');
  const other = openSqlite(file);
  other.exec('BEGIN IMMEDIATE');
  await expect(retryWhileBusy(() => tb.tokens.issue(1, '/api/add-product'), 50)).rejects.toThrow(/stayed locked/);
  other.exec('ROLLBACK');
  other.close();
  expect(tb.db.prepare('SELECT count(*) FROM access_tokens').pluck().get()).toBe(0);
});

test('a write that gave up waiting is answered 503 ERROR_BUSY, as the OpenAPI document says', async () => {
  const { api, tb, app } = await testService();
  tb.tokens.issue = () => {
    throw new StorageBusyError('the database stayed locked for 10000 ms');
  };
  const res = await api.get('/api/add-product');
  expect([res.status, res.body.errors[0].code, res.headers.get('retry-after')]).toEqual([503, 'ERROR_BUSY', '1']);
  const doc = await (await app.request('/api/openapi.json')).json();
  for (const step of ['get', 'post']) {
    expect(doc.paths['/api/add-product'][step].responses['503']).toBeDefined();
    expect(doc.paths['/api/add-product'][step]['x-error-codes']).toContain('ERROR_BUSY');
  }
});
