import { expect, test } from 'vitest';
import type { EventRow } from '../../../src/events/rows.ts';
import { createApp } from '../../../src/http/app.ts';
import { projectors } from '../../../src/projections/registry.ts';
import { demoCompany } from '../../../src/seed/demo-company.ts';
import type { PostgresDatabase } from '../../../src/storage/postgres/connection.ts';
import { Company } from '../../../src/company.ts';
import { PostgresEngine } from '../../../src/storage/postgres/engine.ts';
import { importRecords } from '../../../src/use-cases/import.ts';
import { ApiClient, manualClock, testService } from '../../helpers.ts';
import { describeEngines } from './engines.ts';
import { releaseReadModels as readModels } from '../../../src/company.ts';
import { dumpReadTables } from '../../read-tables.ts';

/** The same history written to a company: the demo company imported, then edits and price updates over HTTP. */
async function writeHistory(tb: Company, key: string) {
  let line = 0;
  const records = [...demoCompany(20_261_125, { products: 40, contractors: 15, documents: 150 })].map((value) => ({ line: ++line, value }));
  const report = await importRecords(tb, records, () => {});
  expect(report.failed).toBe(0);
  const api = new ApiClient(createApp(tb), key);
  const writes: [string, string, unknown[]][] = [
    ['/api/update-product-prices', 'data', [{ sku: 'SKU-0000003', salePrice: 12.34 }, { sku: 'SKU-0000007', purchasePrice: 1 }, { sku: 'SKU-0000003', minPrice: 5 }]],
    ['/api/edit-product-brand', 'brand', [{ id: 1, name: 'Переименованный бренд' }]],
    ['/api/edit-product-category', 'category', [{ id: 1, name: 'Переименованная группа' }]],
    ['/api/add-product', 'products', [{ name: 'Новый товар', sku: 'NEW-1', categoryId: 0 }]],
    ['/api/add-contractor', 'contractors', [{ type: 'ФЛ', name: 'Новый клиент', contactPerson: 'Сам', phone1: '+7 999 000-00-00' }]],
  ];
  for (const [path, wrapper, batch] of writes) expect((await api.write(path, wrapper, batch)).status).toBe(200);
}

/** Every row of every read table of a PostgreSQL database, ordered by every column as the SQLite dump orders them. */
async function postgresReadTables(db: PostgresDatabase): Promise<Record<string, unknown[]>> {
  const dump: Record<string, unknown[]> = {};
  for (const table of projectors.flatMap((p) => p.tables)) {
    const [{ columns }] = await db.pool.sql<{ columns: number }>(
      'SELECT count(*)::int AS columns FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1',
      [table],
    );
    const order = Array.from({ length: columns }, (_, i) => i + 1).join(', ');
    dump[table] = await db.pool.sql(`SELECT * FROM "${table}" ORDER BY ${order}`);
  }
  return dump;
}

describeEngines('one history, both engines', (database) => {
  test('identical read rows, and an identical log but for the random access tokens HTTP writes record', async () => {
    const start = Date.parse('2026-11-25T09:00:00Z');
    const sqlite = await testService({ clock: manualClock(start) });
    const clock = manualClock(start);
    const postgres = await Company.over(await PostgresEngine.on(database(), readModels, { clock }), { clock });
    try {
      // The same key on both: the log's meta names the key by id, the history by name.
      const { key } = await postgres.keys.create({ name: 'test', key: sqlite.key });
      await writeHistory(sqlite.tb, sqlite.key);
      await writeHistory(postgres, key);

      const sqliteTables = dumpReadTables(sqlite.tb.db);
      const postgresTables = await postgresReadTables(database());
      for (const table of Object.keys(sqliteTables)) expect(postgresTables[table], table).toEqual(sqliteTables[table]);
      expect(sqliteTables.documents.length).toBeGreaterThan(100);

      const end = await sqlite.tb.audit.lastSeq();
      expect(await postgres.audit.lastSeq()).toBe(end);
      // An HTTP write records the hash of its access token, a random secret: from the first one the hashes differ
      // too. Up to it the log is the same byte for byte; after it, everything but those two.
      const comparable = (rows: EventRow[]) =>
        rows.map((row) => (JSON.parse(row.meta).tokenHash === undefined ? row : { ...row, hash: 'differs', meta: row.meta.replace(/"tokenHash":"\w+"/, '"tokenHash":"random"') }));
      const [fromPostgres, fromSqlite] = [await postgres.audit.eventsAfter(0, end), await sqlite.tb.audit.eventsAfter(0, end)];
      expect(fromPostgres.filter((row) => !row.meta.includes('tokenHash'))).toHaveLength(end - 7);
      expect(comparable(fromPostgres)).toEqual(comparable(fromSqlite));
    } finally {
      await postgres.close();
    }
  });
});
