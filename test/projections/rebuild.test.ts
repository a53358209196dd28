import { describe, expect, test } from 'vitest';
import { type StoredEvent, readEvents, toStoredEvent } from '../../src/events/store.ts';
import { openSqlite } from '../../src/storage/sqlite/open.ts';
import { rebuild } from '../../src/projections/rebuild.ts';
import { Projections, createProjectionTables, projectors } from '../../src/projections/registry.ts';
import { importLines } from '../../src/use-cases/import.ts';
import { testService, tempDir } from '../helpers.ts';
import { dumpReadTables } from '../read-tables.ts';
import path from 'node:path';

async function variedHistory() {
  const service = await testService();
  const { api, tb } = service;
  await api.write('/api/add-product-category', 'category', [{ name: 'Еда' }, { name: 'Молоко', parent: 1 }, { name: 'Химия' }]);
  await api.write('/api/add-product-brand', 'brand', [{ name: 'Бренд' }, { name: 'Другой', logo: 'x.png' }]);
  await api.write('/api/add-product', 'products', [
    { name: 'Кефир', sku: 'K', categoryId: 2, brandId: 1, salePrice: 70, barcodes: ['1', '2'] },
    { name: 'Мыло', sku: 'S', categoryId: 3, vat: 20, weight: 0.1 },
    { name: 'Доставка', sku: 'D', categoryId: 0, parent: 1 },
  ]);
  await api.write('/api/update-product-prices', 'data', [{ sku: 'K', salePrice: 75.5, minPrice: 60 }]);
  await api.write('/api/edit-product', 'products', [{ id: 2, name: 'Мыло детское', sku: 'S2', categoryId: 1, brandId: 2, unit: 'шт' }]);
  await api.write('/api/edit-product-category', 'category', [{ id: 2, name: 'Молочное', parent: 3 }]);
  await api.write('/api/edit-product-brand', 'brand', [{ id: 1, name: 'Бренд+' }]);
  // An imported product with an id below the highest one takes its place in id order.
  const lines = [
    { type: 'product', data: { id: 100, name: 'Сто', sku: 'C100', categoryId: 0 } },
    { type: 'product', data: { id: 50, name: 'Пятьдесят', sku: 'C50', categoryId: 1, additionalPrices: [{ name: 'опт', price: 10.5 }], packs: [{ unit: 'уп', count: 6 }] } },
  ];
  await importLines(tb, lines.map((l) => JSON.stringify(l)) as unknown as AsyncIterable<string>, () => {
    throw new Error('no line may fail');
  });
  return service;
}

describe('rebuild', () => {
  test('rebuilt read tables equal the live ones after a varied history', async () => {
    const { tb, api } = await variedHistory();
    const live = dumpReadTables(tb.db);
    const pageBefore = (await api.get('/api/products')).text;
    expect(live.products.length).toBe(5);
    const { events } = rebuild(tb.db);
    expect(events).toBe([...readEvents(tb.db)].length);
    expect(dumpReadTables(tb.db)).toEqual(live);
    expect((await api.get('/api/products')).text).toBe(pageBefore);
    expect((await api.get('/api/products')).body.data.map((p: { id: number }) => p.id)).toEqual([1, 2, 3, 50, 100]);
  });

  test('projectors are idempotent: applying the log twice gives the same rows', async () => {
    const { tb } = await variedHistory();
    const db = openSqlite(path.join(tempDir(), 'twice.db'));
    db.exec('CREATE TABLE projection_checkpoints (name TEXT PRIMARY KEY, version INTEGER NOT NULL, last_seq INTEGER NOT NULL)');
    createProjectionTables(db, projectors, 0);
    const projections = new Projections(db);
    const events = [...readEvents(tb.db)].map(toStoredEvent);
    db.transaction(() => projections.apply(events))();
    const once = dumpReadTables(db);
    db.transaction(() => projections.apply(events))();
    expect(dumpReadTables(db)).toEqual(once);
    expect(once).toEqual(dumpReadTables(tb.db));
    db.close();
  });

  test('deferred views: one replay of the whole log flushed once gives the rows of applying it event by event', async () => {
    const { tb, api } = await variedHistory();
    // Several price updates of one product, then a rename of its brand and group: all deferred within one replay.
    await api.write('/api/update-product-prices', 'data', [{ sku: 'K', salePrice: 80 }, { sku: 'K', purchasePrice: 40.25 }, { sku: 'C50', minPrice: 1 }]);
    await api.write('/api/edit-product', 'products', [{ id: 1, name: 'Кефир 1%', sku: 'K', categoryId: 2, brandId: 1, salePrice: 79 }]);
    await api.write('/api/edit-product-brand', 'brand', [{ id: 1, name: 'Бренд три' }]);
    // Rendered at once, after the rename: must show the new name although the old one was read in the same replay.
    await api.write('/api/edit-product', 'products', [{ id: 2, name: 'Мыло', sku: 'S2', categoryId: 1, brandId: 1 }]);
    await api.write('/api/edit-product-category', 'category', [{ id: 2, name: 'Молочка' }]);
    await api.write('/api/update-product-prices', 'data', [{ sku: 'K', salePrice: 81 }]);
    const events = [...readEvents(tb.db)].map(toStoredEvent);
    const fresh = (name: string) => {
      const db = openSqlite(path.join(tempDir(), name));
      db.exec('CREATE TABLE projection_checkpoints (name TEXT PRIMARY KEY, version INTEGER NOT NULL, last_seq INTEGER NOT NULL)');
      createProjectionTables(db, projectors, 0);
      return { db, projections: new Projections(db) };
    };
    const stepwise = fresh('stepwise.db');
    stepwise.db.transaction(() => events.forEach((e) => stepwise.projections.apply([e])))();
    const deferred = fresh('deferred.db');
    deferred.db.transaction(() => deferred.projections.replay(events))();
    // Before the flush the last price update is not rendered yet.
    expect(JSON.parse(deferred.db.prepare("SELECT full_json FROM products WHERE sku = 'K'").pluck().get() as string).salePrice).toBe(79);
    deferred.db.transaction(() => deferred.projections.flush())();
    expect(dumpReadTables(deferred.db)).toEqual(dumpReadTables(stepwise.db));
    expect(dumpReadTables(stepwise.db)).toEqual(dumpReadTables(tb.db));
    expect(JSON.parse((await tb.products.fullJsonBySku('K'))!)).toMatchObject({ salePrice: 81, purchasePrice: 40.25, brand: { name: 'Бренд три' }, category: { name: 'Молочка' } });
    expect(JSON.parse((await tb.products.fullJsonBySku('S2'))!)).toMatchObject({ brand: { name: 'Бренд три' } });
    stepwise.db.close();
    deferred.db.close();
  });

  test('a failed apply leaves no deferred work behind for the next transaction', async () => {
    const { tb } = await variedHistory();
    const events = [...readEvents(tb.db)].map(toStoredEvent);
    const db = openSqlite(path.join(tempDir(), 'failed.db'));
    db.exec('CREATE TABLE projection_checkpoints (name TEXT PRIMARY KEY, version INTEGER NOT NULL, last_seq INTEGER NOT NULL)');
    createProjectionTables(db, projectors, 0);
    const projections = new Projections(db);
    db.transaction(() => projections.apply(events))();
    const before = dumpReadTables(db);
    const last = events[events.length - 1].seq;
    const added = events.find((e) => e.type === 'ProductAdded')!;
    const price = { ...added, type: 'ProductPricesUpdated', seq: last + 1, data: { id: 1, changes: { salePrice: 99_999 } } } as StoredEvent;
    // A second product with the first one's sku: the products table refuses it, so the apply throws.
    const clash = { ...added, seq: last + 2, data: { ...added.data, id: 999 } } as StoredEvent;
    expect(() => db.transaction(() => projections.apply([price, clash]))()).toThrow(/UNIQUE/);
    expect(dumpReadTables(db)).toEqual(before);
    db.transaction(() => projections.apply([]))();
    db.transaction(() => projections.flush())();
    expect(dumpReadTables(db)).toEqual(before);
    db.close();
  });

  test('a projection whose version changed is rebuilt when the database is opened', async () => {
    const { tb, file } = await variedHistory();
    const live = dumpReadTables(tb.db);
    tb.db.prepare("UPDATE projection_checkpoints SET version = version + 1 WHERE name = 'products'").run();
    tb.db.prepare('DELETE FROM products').run();
    tb.close();
    const { Tradebook } = await import('../../src/tradebook.ts');
    const rebuilt: string[] = [];
    const reopened = await Tradebook.open(file, { onRebuilt: (names) => rebuilt.push(...names) });
    expect(rebuilt).toContain('products');
    expect(dumpReadTables(reopened.db)).toEqual(live);
    reopened.close();
  });
});
