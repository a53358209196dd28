import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { writeBare } from '../../../bench/ceilings.ts';
import { rebuildFloor, writesOf } from '../../../bench/floors.ts';
import { lastSeq } from '../../../src/storage/sqlite/event-log.ts';
import { testService } from '../../helpers.ts';

const product = (sku: string) => ({ sku, name: `Товар ${sku}`, categoryId: 0 });
const contractors = [
  { type: 'ЮЛ', name: 'ООО Ромашка', contactPerson: 'Иванов Иван', phone1: '+7 (916) 123-45-67', inn: '7701234567', kpp: '770101001' },
  { type: 'ИП', name: 'ИП Петров', contactPerson: 'Петров Пётр', phone1: '8 903 000-11-22', phone2: '+7 495 111 22 33', inn: '770123456789' },
];

/** A log whose range `run` holds only what the write scenarios append: new contractors and price updates. */
async function scenarioWrites() {
  const service = await testService();
  const { api, tb } = service;
  expect((await api.write('/api/add-product-brand', 'brand', [{ name: 'Бренд' }])).status).toBe(200);
  expect((await api.write('/api/add-product', 'products', [product('A'), product('B')])).status).toBe(200);
  const from = lastSeq(tb.db);
  expect((await api.write('/api/add-contractor', 'contractors', contractors)).status).toBe(200);
  expect((await api.write('/api/update-product-prices', 'data', [{ sku: 'A', salePrice: 3.5 }, { sku: 'B', minPrice: 1 }])).status).toBe(200);
  return { ...service, run: { from, to: lastSeq(tb.db) } };
}

const rows = (db: Database.Database, sql: string) => db.prepare(sql).all();

describe('the write floor', () => {
  it('writes each event row and, for the floor, the very read-model rows the event left', async () => {
    const { tb, run } = await scenarioWrites();
    const writes = writesOf(tb.db, run, 100);
    expect(writes.records).toHaveLength(run.to - run.from);

    const floor = new Database(':memory:');
    writeBare(floor, writes, true);
    for (const sql of ['SELECT * FROM events ORDER BY seq', 'SELECT * FROM contractors ORDER BY id', 'SELECT * FROM contractor_phones ORDER BY digits', 'SELECT * FROM products ORDER BY id']) {
      const source = sql.includes('events') ? `SELECT * FROM events WHERE seq > ${run.from} ORDER BY seq` : sql;
      expect(rows(floor, sql)).toEqual(rows(tb.db, source));
    }

    const ceiling = new Database(':memory:');
    writeBare(ceiling, writes, false);
    expect(rows(ceiling, 'SELECT count(*) AS n FROM events')).toEqual([{ n: run.to - run.from }]);
    expect(rows(ceiling, 'SELECT count(*) AS n FROM contractors')).toEqual([{ n: 0 }]);
  });

  it('refuses events whose read-model rows it does not know (a brand added)', async () => {
    const { tb, run } = await scenarioWrites();
    expect(() => writesOf(tb.db, { from: 0, to: run.to }, 100)).toThrow(/no read-model rows known for stream/);
  });
});

describe('the rebuild floor', () => {
  it('reads the whole log and copies the read tables, leaving the database as it was', async () => {
    const { tb, file } = await scenarioWrites();
    const schema = () => rows(tb.db, 'SELECT name, sql FROM sqlite_master ORDER BY name');
    const before = { schema: schema(), products: rows(tb.db, 'SELECT * FROM products') };
    const floor = rebuildFloor(file);
    expect(floor.readSeconds).toBeGreaterThan(0);
    expect(floor.writeSeconds).toBeGreaterThan(0);
    expect(floor.eventsPerSecond).toBeCloseTo(lastSeq(tb.db) / (floor.readSeconds + floor.writeSeconds));
    expect({ schema: schema(), products: rows(tb.db, 'SELECT * FROM products') }).toEqual(before);
  });
});
