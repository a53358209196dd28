import path from 'node:path';
import { expect, test } from 'vitest';
import { type StoredEvent, toStoredEvent } from '../../../src/events/store.ts';
import { buildInto } from '../../../src/projections/build.ts';
import { Projections, createProjectionTables, projectors } from '../../../src/projections/registry.ts';
import { servedNames } from '../../../src/projections/projector.ts';
import { readEvents } from '../../../src/storage/sqlite/event-log.ts';
import { inWriteTransaction } from '../../../src/storage/sqlite/maintenance.ts';
import { openSqlite } from '../../../src/storage/sqlite/open.ts';
import { sqliteSession } from '../../../src/storage/sqlite/session.ts';
import { variedHistory } from '../../catalogue-history.ts';
import { tempDir } from '../../helpers.ts';
import { dumpReadTables } from '../../read-tables.ts';

/**
 * Products added in descending id order (each below the highest so far: a build writes them narrow and renders
 * them at its flush), each patched by price updates and edited while still kept back, one added twice, then a
 * brand renamed: a build of it and the same events applied live one at a time leave the same rows.
 */
function productsOutOfOrder(after: StoredEvent): StoredEvent[] {
  let seq = after.seq;
  const event = (type: string, data: unknown) => ({ ...after, seq: ++seq, type, data }) as StoredEvent;
  const base = after.type === 'ProductAdded' ? after.data : undefined;
  const events: StoredEvent[] = [];
  for (let id = 300; id > 150; id -= 3) {
    const added = event('ProductAdded', { ...base, id, sku: `R${id}`, brandId: id % 2 === 0 ? 1 : null, categoryId: id % 3 });
    events.push(added, event('ProductPricesUpdated', { id, changes: { salePrice: id * 10 } }));
    if (id % 4 === 0) events.push(event('ProductEdited', { id, changes: { name: `Товар ${id}` } }));
    events.push(event('ProductPricesUpdated', { id, changes: { purchasePrice: id } }));
    if (id % 5 === 0) events.push({ ...added, seq: ++seq });
  }
  events.push(event('BrandEdited', { id: 1, name: 'Бренд после' }));
  return events;
}

test('the row writer leaves the same rows live and in a build, for products in any id order, patched and edited while kept back', async () => {
  const { tb } = await variedHistory();
  const logged = [...readEvents(tb.db)].map(toStoredEvent);
  const events = [...logged, ...productsOutOfOrder([...logged].reverse().find((e) => e.type === 'ProductAdded')!)];
  const fresh = async (name: string) => {
    const db = openSqlite(path.join(tempDir(), name));
    db.exec('CREATE TABLE projection_checkpoints (name TEXT PRIMARY KEY, version INTEGER NOT NULL, last_seq INTEGER NOT NULL)');
    return db;
  };

  const live = await fresh('live.db');
  await createProjectionTables(sqliteSession(live), projectors, 0);
  const projections = new Projections(sqliteSession(live), projectors);
  for (const e of events) await inWriteTransaction(live, () => projections.apply([e]));

  const built = await fresh('built.db');
  const reader = events[Symbol.iterator]();
  await buildInto(projectors, sqliteSession(built), servedNames, reader, { transaction: (work) => inWriteTransaction(built, work), chunk: 7, readIndexes: true });

  const rows = dumpReadTables(built);
  expect(rows).toEqual(dumpReadTables(live));
  const product = (id: number) => JSON.parse(built.prepare('SELECT full_json FROM products WHERE id = ?').pluck().get(id) as string);
  expect(product(288)).toMatchObject({ id: 288, name: 'Товар 288', salePrice: 28.8, purchasePrice: 2.88, brand: { id: 1, name: 'Бренд после' } });
  expect(product(153)).toMatchObject({ id: 153, salePrice: 15.3, brand: null });
  live.close();
  built.close();
});
