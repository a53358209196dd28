import { describe, expect, test } from 'vitest';
import { type StoredEvent, toStoredEvent } from '../../../src/events/store.ts';
import { readEvents } from '../../../src/storage/sqlite/event-log.ts';
import { openSqlite } from '../../../src/storage/sqlite/open.ts';
import { sqliteSession } from '../../../src/storage/sqlite/session.ts';
import { inWriteTransaction } from '../../../src/storage/sqlite/maintenance.ts';
import { Projections, createProjectionTables, projectors } from '../../../src/projections/registry.ts';
import { tempDir } from '../../helpers.ts';
import { variedHistory } from '../../catalogue-history.ts';
import { dumpReadTables } from '../../read-tables.ts';
import path from 'node:path';

/** The projectors applied to scratch databases directly: replays, deferred views and rollbacks, on SQLite. */
describe('projectors replayed', () => {
  test('projectors are idempotent: applying the log twice gives the same rows', async () => {
    const { tb } = await variedHistory();
    const db = openSqlite(path.join(tempDir(), 'twice.db'));
    db.exec('CREATE TABLE projection_checkpoints (name TEXT PRIMARY KEY, version INTEGER NOT NULL, last_seq INTEGER NOT NULL)');
    await createProjectionTables(sqliteSession(db), projectors, 0);
    const projections = new Projections(sqliteSession(db), projectors);
    const events = [...readEvents(tb.db)].map(toStoredEvent);
    await inWriteTransaction(db, async () => { await projections.apply(events); });
    const once = dumpReadTables(db);
    await inWriteTransaction(db, async () => { await projections.apply(events); });
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
    const fresh = async (name: string) => {
      const db = openSqlite(path.join(tempDir(), name));
      db.exec('CREATE TABLE projection_checkpoints (name TEXT PRIMARY KEY, version INTEGER NOT NULL, last_seq INTEGER NOT NULL)');
      await createProjectionTables(sqliteSession(db), projectors, 0);
      return { db, projections: new Projections(sqliteSession(db), projectors) };
    };
    const stepwise = await fresh('stepwise.db');
    await inWriteTransaction(stepwise.db, async () => {
      for (const e of events) await stepwise.projections.apply([e]);
    });
    const deferred = await fresh('deferred.db');
    await inWriteTransaction(deferred.db, async () => { await deferred.projections.replay(events); });
    // Before the flush the last price update is not rendered yet.
    expect(JSON.parse(deferred.db.prepare("SELECT full_json FROM products WHERE sku = 'K'").pluck().get() as string).salePrice).toBe(79);
    await inWriteTransaction(deferred.db, async () => { await deferred.projections.flush(); });
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
    await createProjectionTables(sqliteSession(db), projectors, 0);
    const projections = new Projections(sqliteSession(db), projectors);
    await inWriteTransaction(db, async () => { await projections.apply(events); });
    const before = dumpReadTables(db);
    const last = events[events.length - 1].seq;
    const added = events.find((e) => e.type === 'ProductAdded')!;
    const price = { ...added, type: 'ProductPricesUpdated', seq: last + 1, data: { id: 1, changes: { salePrice: 99_999 } } } as StoredEvent;
    // A second product with the first one's sku: the products table refuses it, so the apply throws.
    const clash = { ...added, seq: last + 2, data: { ...added.data, id: 999 } } as StoredEvent;
    await expect(inWriteTransaction(db, () => projections.apply([price, clash]))).rejects.toThrow(/UNIQUE/);
    expect(dumpReadTables(db)).toEqual(before);
    await inWriteTransaction(db, async () => { await projections.apply([]); });
    await inWriteTransaction(db, async () => { await projections.flush(); });
    expect(dumpReadTables(db)).toEqual(before);
    db.close();
  });

});
