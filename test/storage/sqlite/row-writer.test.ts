import path from 'node:path';
import { expect, test } from 'vitest';
import { type StoredEvent, toStoredEvent } from '../../../src/events/store.ts';
import { buildInto } from '../../../src/projections/build.ts';
import { Projections, createProjectionTables, projectors } from '../../../src/projections/registry.ts';
import { servedNames } from '../../../src/projections/projector.ts';
import { readEvents } from '../../../src/storage/sqlite/event-log.ts';
import { chunks } from '../../../src/storage/sql.ts';
import { inWriteTransaction } from '../../../src/storage/sqlite/maintenance.ts';
import { openSqlite } from '../../../src/storage/sqlite/open.ts';
import { sqliteSession } from '../../../src/storage/sqlite/session.ts';
import { variedHistory } from '../../catalogue-history.ts';
import { importRecords, line, money, romashka, sale, table } from '../../documents-fixtures.ts';
import { tempDir, testService } from '../../helpers.ts';
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

async function fresh(name: string, trace?: (sql: string) => void) {
  const db = openSqlite(path.join(tempDir(), name), { trace });
  db.exec('CREATE TABLE projection_checkpoints (name TEXT PRIMARY KEY, version INTEGER NOT NULL, last_seq INTEGER NOT NULL)');
  return db;
}

/**
 * The events applied live one at a time, and in one database the others and then those `batched` picks in one
 * transaction: both databases, and the statements of that transaction.
 */
async function oneAtATimeAndBatched(events: StoredEvent[], batch: (event: StoredEvent) => boolean) {
  const oneAtATime = await fresh('one-at-a-time.db');
  await createProjectionTables(sqliteSession(oneAtATime), projectors, 0);
  const one = new Projections(sqliteSession(oneAtATime), projectors);
  for (const e of events) await inWriteTransaction(oneAtATime, () => one.apply([e]));

  let tracing = false;
  const statements: string[] = [];
  const batched = await fresh('batched.db', (sql) => void (tracing && statements.push(sql)));
  await createProjectionTables(sqliteSession(batched), projectors, 0);
  const all = new Projections(sqliteSession(batched), projectors);
  await inWriteTransaction(batched, () => all.apply(events.filter((e) => !batch(e))));
  tracing = true;
  await inWriteTransaction(batched, () => all.apply(events.filter(batch)));
  return { oneAtATime, batched, statements };
}

test('the row writer leaves the same rows live and in a build, for products in any id order, patched and edited while kept back', async () => {
  const { tb } = await variedHistory();
  const logged = [...readEvents(tb.db)].map(toStoredEvent);
  const events = [...logged, ...productsOutOfOrder([...logged].reverse().find((e) => e.type === 'ProductAdded')!)];

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

test('a partitioned table (document months): documents re-dated move between months, and a log applied again leaves the rows of applying it once, live and in a build', async () => {
  const { tb } = await testService();
  const dated = (id: number, date: string) => sale(id, 0, 100, { date, number: `S-${id}` });
  const recorded = [dated(5, '2026-01-10'), dated(2, '2026-02-10'), dated(9, '2026-01-20'), dated(1, '2026-03-01')];
  expect((await importRecords(tb, [line('contractor', romashka), line('product', table), ...recorded])).failures).toEqual([]);
  // Re-dated: 5 into another month, 2 within its month, 9 away and back, and 7 recorded below the highest into 5's new month.
  const revised = [dated(5, '2026-07-01'), dated(2, '2026-02-11'), dated(9, '2026-05-05'), dated(7, '2026-07-02'), dated(9, '2026-01-21')];
  for (const revision of revised) expect((await importRecords(tb, [revision])).failures).toEqual([]);
  const events = [...readEvents(tb.db)].map(toStoredEvent);

  const once = await fresh('once.db');
  await createProjectionTables(sqliteSession(once), projectors, 0);
  const live = new Projections(sqliteSession(once), projectors);
  for (const e of events) await inWriteTransaction(once, () => live.apply([e]));

  const twice = await fresh('twice.db');
  await createProjectionTables(sqliteSession(twice), projectors, 0);
  const replayed = new Projections(sqliteSession(twice), projectors);
  for (let round = 0; round < 2; round++) {
    await inWriteTransaction(twice, async () => {
      await replayed.replay(events);
      await replayed.flush();
    });
  }

  const built = await fresh('built.db');
  await buildInto(projectors, sqliteSession(built), servedNames, events[Symbol.iterator](), { transaction: (work) => inWriteTransaction(built, work), chunk: 3, readIndexes: true });

  const monthSize = (db: typeof once, month: string) =>
    db.prepare("SELECT size FROM document_month_id_counts WHERE type = 'sale' AND month = ? AND level = 9").pluck().get(month) ?? 0;
  expect(['2026-01', '2026-02', '2026-03', '2026-05', '2026-07'].map((m) => monthSize(once, m))).toEqual([1, 1, 1, 0, 2]);
  const keys = once.prepare("SELECT m.id, m.key = r.key FROM document_months m JOIN document_records r ON r.type = m.type AND r.id = m.id ORDER BY m.id").raw().all();
  expect(keys).toEqual([[1, 1], [2, 1], [5, 1], [7, 1], [9, 1]]);
  expect(dumpReadTables(twice)).toEqual(dumpReadTables(once));
  expect(dumpReadTables(built)).toEqual(dumpReadTables(once));
  for (const db of [once, twice, built]) db.close();
});

test("a sale recorded again keeps its key and the bonus percent of its programme when it was first recorded, live and in a build", async () => {
  const { tb } = await testService();
  expect((await importRecords(tb, [line('contractor', romashka), line('product', table), sale(1, 1, 1000), sale(2, 1, 500)])).failures).toEqual([]);
  expect((await importRecords(tb, [line('contractor', { ...romashka, bonus: { status: 1, percent: 10 } })])).failures).toEqual([]);
  const logged = [...readEvents(tb.db)].map(toStoredEvent);
  const recorded = logged.find((e) => e.type === 'DocumentRecorded')!;
  // The first sale's event applied again, after its contractor's programme changed.
  const events = [...logged, { ...recorded, seq: logged[logged.length - 1].seq + 1 }];

  const live = async (name: string, log: StoredEvent[]) => {
    const db = await fresh(name);
    await createProjectionTables(sqliteSession(db), projectors, 0);
    const projections = new Projections(sqliteSession(db), projectors);
    for (const e of log) await inWriteTransaction(db, () => projections.apply([e]));
    return db;
  };
  const once = await live('once.db', logged);
  const again = await live('again.db', events);
  const built = await fresh('built.db');
  await buildInto(projectors, sqliteSession(built), servedNames, events[Symbol.iterator](), { transaction: (work) => inWriteTransaction(built, work), chunk: 2, readIndexes: true });

  const sales = "SELECT id, key, bonus_percent, bonus_accrual FROM document_records WHERE type = 'sale' ORDER BY id";
  expect(again.prepare(sales).raw().all()).toEqual([[1, 1, 5, 5000], [2, 2, 5, 2500]]);
  expect(dumpReadTables(again)).toEqual(dumpReadTables(once));
  expect(dumpReadTables(built)).toEqual(dumpReadTables(once));
  for (const db of [once, again, built]) db.close();
});

test('a batch of edited records is written a hundred rows a statement, to the rows of applying the edits one at a time, products trading SKUs among them', async () => {
  const { api, tb } = await testService();
  const contractor = (i: number, name: string) => ({ type: 'ФЛ', name, contactPerson: 'Иванов', phone1: `+7 916 000-${String(i).padStart(4, '0')}` });
  const ids = Array.from({ length: 250 }, (_, i) => i + 1);
  for (const batch of chunks(ids)) {
    expect((await api.write('/api/add-contractor', 'contractors', batch.map((i) => contractor(i, `Контрагент ${i}`)))).status).toBe(200);
  }
  for (const batch of chunks(ids)) {
    expect((await api.write('/api/edit-contractor', 'contractors', batch.map((i) => ({ id: i, ...contractor(i + 1, `Клиент ${i}`) })))).status).toBe(200);
  }
  // 150 products, each (from the last) taking the SKU of the one after it, the last a new one.
  const skus = Array.from({ length: 150 }, (_, i) => `S-${i + 1}`);
  for (const batch of chunks(skus, 10)) {
    expect((await api.write('/api/add-product', 'products', batch.map((sku) => ({ name: `Товар ${sku}`, sku, categoryId: 0 })))).status).toBe(200);
  }
  for (const batch of chunks([...skus.keys()].reverse(), 10)) {
    const edits = batch.map((i) => ({ id: i + 1, name: `Товар ${i + 1}`, sku: skus[i + 1] ?? 'S-new', categoryId: 0 }));
    expect((await api.write('/api/edit-product', 'products', edits)).status).toBe(200);
  }
  const events = [...readEvents(tb.db)].map(toStoredEvent);
  const isEdit = (e: StoredEvent) => e.type === 'ContractorEdited' || e.type === 'ProductEdited';
  expect(events.filter(isEdit)).toHaveLength(400);

  const { oneAtATime, batched, statements } = await oneAtATimeAndBatched(events, isEdit);
  const updates = statements.filter((sql) => /\bUPDATE\s+"?contractors"?\s/i.test(sql));
  expect(updates, updates.join('\n')).toHaveLength(3);

  expect(dumpReadTables(batched)).toEqual(dumpReadTables(oneAtATime));
  const sku = batched.prepare('SELECT id, sku FROM products WHERE id IN (1, 150) ORDER BY id').raw().all();
  expect(sku).toEqual([[1, 'S-2'], [150, 'S-new']]);
  oneAtATime.close();
  batched.close();
});

test("an edit leaving a contractor's phones as they are writes none of its phone rows; one changing them rewrites them, a statement for the batch", async () => {
  const { api, tb } = await testService();
  const contractor = (i: number, name: string, phone = i) => ({ type: 'ФЛ', name, contactPerson: 'Иванов', phone1: `+7 916 000-${String(phone).padStart(4, '0')}` });
  const ids = [1, 2, 3, 4];
  expect((await api.write('/api/add-contractor', 'contractors', ids.map((i) => contractor(i, `Контрагент ${i}`)))).status).toBe(200);
  expect((await api.write('/api/edit-contractor', 'contractors', ids.map((i) => ({ id: i, ...contractor(i, `Клиент ${i}`) })))).status).toBe(200);
  expect((await api.write('/api/edit-contractor', 'contractors', [3, 4].map((i) => ({ id: i, ...contractor(i, `Клиент ${i}`, i + 10) })))).status).toBe(200);
  const events = [...readEvents(tb.db)].map(toStoredEvent);
  const edits = events.filter((e) => e.type === 'ContractorEdited');
  expect(edits).toHaveLength(6);
  const phoneWrites = (statements: string[]) => statements.filter((sql) => /^\s*(INSERT INTO|DELETE FROM)\s+"?contractor_phones"?\s/i.test(sql)).map((sql) => sql.trim().split(' ')[0]);

  const [renamed, rephoned] = [new Set<StoredEvent>(edits.slice(0, 4)), new Set<StoredEvent>(edits.slice(4))];
  const unchanged = await oneAtATimeAndBatched(events.filter((e) => !rephoned.has(e)), (e) => renamed.has(e));
  expect(phoneWrites(unchanged.statements)).toEqual([]);
  expect(dumpReadTables(unchanged.batched)).toEqual(dumpReadTables(unchanged.oneAtATime));

  const changed = await oneAtATimeAndBatched(events, (e) => e.type === 'ContractorEdited');
  expect(phoneWrites(changed.statements)).toEqual(['DELETE', 'INSERT']);
  expect(dumpReadTables(changed.batched)).toEqual(dumpReadTables(changed.oneAtATime));
  const phones = changed.batched.prepare('SELECT contractor_id, digits FROM contractor_phones ORDER BY contractor_id').raw().all();
  expect(phones).toEqual([[1, '79160000001'], [2, '79160000002'], [3, '79160000013'], [4, '79160000014']]);
  for (const db of [unchanged.oneAtATime, unchanged.batched, changed.oneAtATime, changed.batched]) db.close();
});

test("a document's links are written with it and rewritten only when its basedOn changed, live one at a time, in one batch and in a build", async () => {
  const { tb } = await testService();
  const payment = (id: number, status: number, basedOn: { type: string; id: number }[]) => money('paymentin', id, status, 100, basedOn);
  const sales = [1, 2, 3].map((id) => sale(id, 0, 100, { number: `S-${id}` }));
  const recorded = [line('contractor', romashka), line('product', table), ...sales, payment(1, 0, [{ type: 'sale', id: 1 }]), payment(2, 0, [{ type: 'sale', id: 2 }])];
  expect((await importRecords(tb, recorded)).failures).toEqual([]);
  const postings = [payment(1, 1, [{ type: 'sale', id: 1 }]), payment(2, 1, [{ type: 'sale', id: 2 }])];
  expect((await importRecords(tb, postings)).failures).toEqual([]);
  const relinked = [payment(1, 1, []), payment(2, 1, [{ type: 'sale', id: 3 }, { type: 'sale', id: 2 }])];
  expect((await importRecords(tb, relinked)).failures).toEqual([]);
  const events = [...readEvents(tb.db)].map(toStoredEvent);
  const [postedAt, linkedAt] = [events.findIndex((e) => e.type === 'DocumentPosted'), events.findIndex((e) => e.type === 'DocumentLinked')];
  expect(postedAt).toBeGreaterThan(0);
  expect(linkedAt).toBeGreaterThan(postedAt);

  let statements: string[] | undefined;
  const once = await fresh('once.db', (sql) => statements?.push(sql));
  await createProjectionTables(sqliteSession(once), projectors, 0);
  const live = new Projections(sqliteSession(once), projectors);
  const linkWrites = () => statements!.filter((sql) => /^\s*(INSERT INTO|DELETE FROM)\s+"?document_links"?\s/i.test(sql));
  for (const [i, e] of events.entries()) {
    statements = [];
    await inWriteTransaction(once, () => live.apply([e]));
    if (i >= postedAt && i < linkedAt) expect(linkWrites(), `${e.type} writes no link`).toEqual([]);
    if (e.type === 'DocumentLinked') expect(linkWrites().length).toBeGreaterThan(0);
  }
  const links = once.prepare('SELECT child_type, child_id, parent_type, parent_id FROM document_links ORDER BY 1, 2, 3, 4').raw().all();
  expect(links).toEqual([['paymentin', 2, 'sale', 2], ['paymentin', 2, 'sale', 3]]);

  const batched = await fresh('batched.db');
  await createProjectionTables(sqliteSession(batched), projectors, 0);
  await inWriteTransaction(batched, () => new Projections(sqliteSession(batched), projectors).apply(events));

  const built = await fresh('built.db');
  await buildInto(projectors, sqliteSession(built), servedNames, events[Symbol.iterator](), { transaction: (work) => inWriteTransaction(built, work), chunk: 4, readIndexes: true });

  expect(dumpReadTables(batched)).toEqual(dumpReadTables(once));
  expect(dumpReadTables(built)).toEqual(dumpReadTables(once));
  for (const db of [once, batched, built]) db.close();
});

test('a batch of postings writes the document records a hundred rows a statement, to the rows of applying them one at a time', async () => {
  const { tb } = await testService();
  const ids = Array.from({ length: 150 }, (_, i) => i + 1);
  const drafts = ids.map((id) => sale(id, 0, 100 + id, { number: `S-${id}` }));
  expect((await importRecords(tb, [line('contractor', romashka), line('product', table), ...drafts])).failures).toEqual([]);
  expect((await importRecords(tb, ids.map((id) => sale(id, 1, 100 + id, { number: `S-${id}` })))).failures).toEqual([]);
  const events = [...readEvents(tb.db)].map(toStoredEvent);
  const isPosting = (e: StoredEvent) => e.type === 'DocumentPosted';
  expect(events.filter(isPosting)).toHaveLength(150);

  const { oneAtATime, batched, statements } = await oneAtATimeAndBatched(events, isPosting);
  const writes = statements.filter((sql) => /\b(INSERT INTO|UPDATE)\s+"?document_records"?\s/i.test(sql));
  expect(writes, writes.join('\n')).toHaveLength(2);

  expect(dumpReadTables(batched)).toEqual(dumpReadTables(oneAtATime));
  expect(batched.prepare("SELECT count(*) FROM document_records WHERE status = 1 AND bonus_accrual > 0").pluck().get()).toBe(150);
  oneAtATime.close();
  batched.close();
});
