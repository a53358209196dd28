import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import { ok } from '../../../src/lib/result.ts';
import { Projections, createProjectionTables, projectors } from '../../../src/projections/registry.ts';
import { toStoredEvent } from '../../../src/events/store.ts';
import { readEvents } from '../../../src/storage/sqlite/event-log.ts';
import { openSqlite } from '../../../src/storage/sqlite/open.ts';
import { sqliteSession } from '../../../src/storage/sqlite/session.ts';
import { inWriteTransaction } from '../../../src/storage/sqlite/maintenance.ts';
import { expectRebuildEqualsLive, importRecords, line, money, romashka, sale, table } from '../../documents-fixtures.ts';
import { openSqliteCompany, tempDir, testService } from '../../helpers.ts';
import path from 'node:path';
import { dumpReadTables } from '../../read-tables.ts';

const buildTables = (db: Database.Database) =>
  db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rebuilding\\_%' ESCAPE '\\' ORDER BY name").pluck().all();

async function catalogue() {
  const service = await testService();
  await service.api.write('/api/add-product-brand', 'brand', [{ name: 'Бренд' }]);
  await service.api.write('/api/add-product', 'products', [
    { name: 'Кефир', sku: 'K', categoryId: 0, brandId: 1, salePrice: 70 },
    { name: 'Мыло', sku: 'S', categoryId: 0 },
  ]);
  return service;
}

describe('rebuild beside the served tables', () => {
  test('an interrupted rebuild leaves the served tables; the next rebuild drops its leftovers', async () => {
    const { tb } = await catalogue();
    const before = dumpReadTables(tb.db);
    // A build stopped half-way: build tables beside the served ones, one of them from a table an older version had.
    tb.db.exec('CREATE TABLE rebuilding_products (id INTEGER PRIMARY KEY)');
    tb.db.exec('CREATE TABLE rebuilding_gone (x)');
    expect(dumpReadTables(tb.db)).toEqual(before);
    await tb.rebuild();
    expect(buildTables(tb.db)).toEqual([]);
    expect(dumpReadTables(tb.db)).toEqual(before);
  });

  test('a build that fails drops what it built and leaves the served tables', async () => {
    const { tb } = await catalogue();
    const before = dumpReadTables(tb.db);
    await expect(
      tb.rebuild({
        onProgress: () => {
          throw new Error('stopped');
        },
      }),
    ).rejects.toThrow('stopped');
    expect(buildTables(tb.db)).toEqual([]);
    expect(dumpReadTables(tb.db)).toEqual(before);
  });

  test('while it builds, other connections read the served tables and may write; their events are applied in the swap', async () => {
    const { tb, api, file } = await catalogue();
    const before = dumpReadTables(tb.db);
    const reader = new Database(file, { readonly: true });
    const other = await openSqliteCompany(file);
    let seen: unknown;
    await tb.rebuild({
      onProgress: async () => {
        if (seen !== undefined) return;
        // Between the build's transactions: its tables exist beside the served ones, which still serve.
        expect(buildTables(reader)).toContain('rebuilding_products');
        seen = reader.prepare('SELECT * FROM products ORDER BY id').all();
        // Another writer's transaction, made on the spot.
        await inWriteTransaction(other.db, () => other.log.append([{ stream: 'brand-2', type: 'BrandAdded', data: { id: 2, name: 'Новый', logo: null } }], { source: 'test' }));
      },
    });
    expect(seen).toEqual(before.products);
    expect(buildTables(reader)).toEqual([]);
    expect(await tb.brands.allJson()).toEqual(['{"id":1,"name":"Бренд","logo":null}', '{"id":2,"name":"Новый","logo":null}']);
    expect(((await api.get('/api/products')).body.data as { sku: string }[]).map((p) => p.sku)).toEqual(['K', 'S']);
    // What the swap applied equals a rebuild of the whole log.
    await expectRebuildEqualsLive(tb);
    reader.close();
    other.close();
  });

  test('a read transaction open across the swap keeps reading the tables it began with', async () => {
    const { tb, api, file } = await catalogue();
    const reader = new Database(file, { readonly: true });
    const page = reader.prepare('SELECT list_json FROM products ORDER BY id').pluck();
    reader.exec('BEGIN');
    const before = page.all();
    await api.write('/api/add-product', 'products', [{ name: 'Сыр', sku: 'C', categoryId: 0 }]);
    await tb.rebuild();
    expect(page.all()).toEqual(before);
    reader.exec('COMMIT');
    expect(page.all()).toHaveLength(3);
    reader.close();
  });

  test('documents recorded below the highest id take their place in id order, live and rebuilt alike', async () => {
    const { tb, api } = await testService();
    const imported = await importRecords(tb, [line('product', table), line('contractor', romashka), sale(5, 1, 500), sale(2, 1, 200), sale(3, 0, 300)]);
    expect(imported.failures).toEqual([]);
    const ids = async (path: string) => ((await api.get(path)).body.data as { id: number }[]).map((d) => d.id);
    expect(await ids('/api/sales')).toEqual([2, 3, 5]);
    expect(await ids('/api/sales?offset=1')).toEqual([3, 5]);
    await expectRebuildEqualsLive(tb);
    expect(await ids('/api/sales?offset=2')).toEqual([5]);
  });

  test('a flush done in steps, each its own transaction, writes what one flush writes', async () => {
    const { tb, api } = await catalogue();
    const records = [line('contractor', romashka), sale(1, 1, 1000), money('cashin', 1, 1, 300, [{ type: 'sale', id: 1 }]), sale(2, 1, 50), sale(3, 0, 70)];
    expect((await importRecords(tb, records)).failures).toEqual([]);
    // Products changed after they were added wait for the flush too.
    expect((await api.write('/api/update-product-prices', 'data', [{ sku: 'K', salePrice: 80 }, { sku: 'S', salePrice: 5 }])).status).toBe(200);
    const db = openSqlite(path.join(tempDir(), 'steps.db'));
    await createProjectionTables(sqliteSession(db), projectors, 0);
    const projections = new Projections(sqliteSession(db), projectors);
    await inWriteTransaction(db, async () => { await projections.replay([...readEvents(tb.db)].map(toStoredEvent)); });
    let steps = 0;
    while (!(await inWriteTransaction(db, () => projections.flush(1)))) steps++;
    expect(steps).toBeGreaterThan(5);
    expect(dumpReadTables(db)).toEqual(dumpReadTables(tb.db));
    db.close();
  });
});
