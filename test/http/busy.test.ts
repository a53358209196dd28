import { expect, test } from 'vitest';
import { openSqlite } from '../../src/db/open.ts';
import { retryWhileBusy } from '../../src/db/busy.ts';
import { testService } from '../helpers.ts';

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

test('a lock held past the budget gives up with DatabaseBusyError (answered 503 ERROR_BUSY) and applies nothing', async () => {
  const { tb, file } = await testService();
  tb.db.pragma('busy_timeout = 0');
  const other = openSqlite(file);
  other.exec('BEGIN IMMEDIATE');
  await expect(retryWhileBusy(() => tb.tokens.issue(1, '/api/add-product'), 50)).rejects.toThrow(/stayed locked/);
  other.exec('ROLLBACK');
  other.close();
  expect(tb.db.prepare('SELECT count(*) FROM access_tokens').pluck().get()).toBe(0);
});
