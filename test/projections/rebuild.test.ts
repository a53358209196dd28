import { describe, expect, test } from 'vitest';
import { variedHistory } from '../catalogue-history.ts';
import { openSqliteCompany } from '../helpers.ts';
import { tamper } from '../storage/sqlite/at-rest.ts';

describe('rebuild', () => {
  test('rebuilt read tables equal the live ones after a varied history', async () => {
    const { tb, api } = await variedHistory();
    const live = tb.readTables();
    const pageBefore = (await api.get('/api/products')).text;
    expect(live.products.length).toBe(5);
    const { events } = await tb.rebuild();
    expect(events).toBe(await tb.audit.lastSeq());
    expect(tb.readTables()).toEqual(live);
    expect((await api.get('/api/products')).text).toBe(pageBefore);
    expect((await api.get('/api/products')).body.data.map((p: { id: number }) => p.id)).toEqual([1, 2, 3, 50, 100]);
  });

  test('a projection whose version changed is rebuilt when the database is opened', async () => {
    const { tb, file } = await variedHistory();
    const live = tb.readTables();
    tb.close();
    tamper(file, "UPDATE projection_checkpoints SET version = version + 1 WHERE name = 'products'; DELETE FROM products");
    const rebuilt: string[] = [];
    const reopened = await openSqliteCompany(file, { onRebuilt: (names) => rebuilt.push(...names) });
    expect(rebuilt).toContain('products');
    expect(reopened.readTables()).toEqual(live);
    reopened.close();
  });

  test('read tables behind the log are caught up when the database is opened, without a word', async () => {
    const { tb, file } = await variedHistory();
    const live = tb.readTables();
    tb.close();
    const emptied = Object.keys(live).map((table) => `DELETE FROM "${table}";`);
    tamper(file, `${emptied.join(' ')} UPDATE projection_checkpoints SET last_seq = 0`);
    const rebuilt: string[] = [];
    const reopened = await openSqliteCompany(file, { onRebuilt: (names) => rebuilt.push(...names) });
    expect(rebuilt).toEqual([]);
    expect(await reopened.staleProjections()).toEqual([]);
    expect(reopened.readTables()).toEqual(live);
    reopened.close();
  });
});
