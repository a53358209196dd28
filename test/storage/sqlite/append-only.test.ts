import Database from 'better-sqlite3';
import { expect, test } from 'vitest';
import { testService } from '../../helpers.ts';

test('the events table refuses UPDATE and DELETE at the database level', async () => {
  const { api, tb, file } = await testService();
  expect((await api.write('/api/add-product-brand', 'brand', [{ name: 'А' }, { name: 'Б' }])).status).toBe(200);
  tb.close();
  const db = new Database(file);
  try {
    expect(() => db.prepare("UPDATE events SET data = '{}' WHERE seq = 1").run()).toThrow(/append-only/);
    expect(() => db.prepare('DELETE FROM events WHERE seq = 1').run()).toThrow(/append-only/);
    expect(db.prepare('SELECT count(*) FROM events').pluck().get()).toBe(2);
  } finally {
    db.close();
  }
});
