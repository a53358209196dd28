import { expect, test } from 'vitest';
import { GENESIS_HASH } from '../../../src/events/hash.ts';
import { ConcurrencyError, type NewEvent, type StoredEvent } from '../../../src/events/rows.ts';
import type { Sql } from '../../../src/storage/postgres/connection.ts';
import { PostgresEventLog, eventsAfter, lastSeq, readEvents, readStream } from '../../../src/storage/postgres/event-log.ts';
import { migrate } from '../../../src/storage/postgres/migrate.ts';
import { PostgresWriter } from '../../../src/storage/postgres/writer.ts';
import { describeEngines } from './engines.ts';
import { all, expectIntactChain } from './log-checks.ts';

const clock = () => Date.parse('2026-11-25T10:00:00Z');
const brand = (id: number, name: string): NewEvent => ({ stream: `brand-${id}`, type: 'BrandAdded', data: { id, name, logo: null } });
const edit = (id: number, name: string, expectedVersion?: NewEvent['expectedVersion']): NewEvent => ({ stream: `brand-${id}`, type: 'BrandEdited', data: { id, name }, expectedVersion });

describeEngines('the PostgreSQL event log', (database) => {
  async function migrated() {
    const db = database();
    await migrate(db.session);
    const writer = new PostgresWriter(db.session);
    return { db, writer, log: new PostgresEventLog(writer, clock) };
  }

  test('migrations create the tables on an empty database, and running them again changes nothing', async () => {
    const { session } = database();
    const tables = (sql: Sql) =>
      sql.sql<{ table_name: string; column_name: string; data_type: string; collation_name: string | null }>(
        `SELECT table_name, column_name, data_type, collation_name FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
      );
    expect(await tables(session)).toEqual([]);
    await migrate(session);
    const created = await tables(session);
    await migrate(session);
    expect(await tables(session)).toEqual(created);
    expect(await session.sql('SELECT name FROM kysely_migration')).toHaveLength(6);
    expect(new Set(created.map((c) => c.table_name))).toEqual(
      new Set(['access_tokens', 'api_keys', 'audit_sessions', 'chain_head', 'events', 'key_version', 'point_in_time', 'projection_checkpoints', 'kysely_migration', 'kysely_migration_lock']),
    );
    const events = Object.fromEntries(created.filter((c) => c.table_name === 'events').map((c) => [c.column_name, [c.data_type, c.collation_name]]));
    expect(events).toEqual({
      seq: ['bigint', null],
      stream: ['text', 'C'],
      stream_version: ['bigint', null],
      type: ['text', 'C'],
      schema_version: ['integer', null],
      data: ['text', null],
      meta: ['text', null],
      recorded_at: ['text', 'C'],
      hash: ['text', null],
    });
    // Nothing draws from a sequence: a rolled-back insert would leave a hole.
    expect(await session.sql(`SELECT sequence_name FROM information_schema.sequences WHERE sequence_schema = current_schema()`)).toEqual([]);
    expect(await session.sql('SELECT id, seq, hash, projectors FROM chain_head')).toEqual([{ id: 1, seq: 0, hash: GENESIS_HASH, projectors: null }]);
  });

  test('appends with dense seqs, per-stream versions and a hash chain over every column, the head moving with them', async () => {
    const { db, writer, log } = await migrated();
    const appended: StoredEvent[][] = [];
    log.onAppend((events) => void appended.push(events));
    await writer.run(() => log.append([brand(1, 'A'), brand(2, 'B')], { keyId: 1, source: 'api' }));
    const [third] = await writer.run(() => log.append([edit(1, 'A2')], { keyId: 1 }));
    expect(third).toMatchObject({ seq: 3, stream: 'brand-1', streamVersion: 2, schemaVersion: 1, meta: { keyId: 1 }, recordedAt: '2026-11-25T10:00:00.000Z' });
    const rows = await all(readEvents(db.pool, 0, 2));
    expect(rows.map((r) => [r.seq, r.stream, r.stream_version])).toEqual([
      [1, 'brand-1', 1],
      [2, 'brand-2', 1],
      [3, 'brand-1', 2],
    ]);
    expect(rows[0]).toMatchObject({ data: '{"id":1,"logo":null,"name":"A"}', meta: '{"keyId":1,"source":"api"}' });
    expectIntactChain(rows);
    expect(await db.pool.sql('SELECT seq, hash FROM chain_head')).toEqual([{ seq: 3, hash: rows[2].hash }]);
    expect(await lastSeq(db.pool)).toBe(3);
    expect((await all(readEvents(db.pool, 2))).map((r) => r.seq)).toEqual([3]);
    expect((await readStream(db.pool, 'brand-1')).map((r) => r.type)).toEqual(['BrandAdded', 'BrandEdited']);
    expect(appended.map((events) => events.map((e) => e.seq))).toEqual([[1, 2], [3]]);
  });

  test('a page of events after a seq, filtered by stream, type and time recorded, as `tradebook events` reads it', async () => {
    const { db, writer } = await migrated();
    let now = Date.parse('2026-11-25T10:00:00Z');
    const log = new PostgresEventLog(writer, () => now);
    await writer.run(() => log.append([brand(1, 'A'), brand(2, 'B')], {}));
    now += 60_000;
    await writer.run(() => log.append([edit(1, 'A2'), edit(2, 'B2'), edit(1, 'A3')], {}));
    const seqs = async (after: number, limit: number, filter = {}) => (await eventsAfter(db.pool, after, limit, filter)).map((r) => r.seq);
    expect(await seqs(0, 10)).toEqual([1, 2, 3, 4, 5]);
    expect(await seqs(1, 2)).toEqual([2, 3]);
    expect(await seqs(0, 10, { stream: 'brand-1' })).toEqual([1, 3, 5]);
    expect(await seqs(3, 10, { stream: 'brand-1', type: 'BrandEdited' })).toEqual([5]);
    expect(await seqs(0, 10, { since: '2026-11-25T10:01:00.000Z' })).toEqual([3, 4, 5]);
    expect(await seqs(0, 10, { since: '2026-11-25T10:01:00.001Z' })).toEqual([]);
    expect(await seqs(0, 10, { stream: 'brand-9' })).toEqual([]);
  });

  test('an append larger than one statement can bind goes in as several, still dense and chained', async () => {
    const { db, writer, log } = await migrated();
    const events = Array.from({ length: 7_300 }, (_, i) => brand(i + 1, `brand ${i + 1}`));
    await writer.run(() => log.append(events, {}));
    const rows = await all(readEvents(db.pool));
    expect(rows).toHaveLength(7_300);
    expectIntactChain(rows);
  });

  test('checks expected stream versions, and a refused append leaves nothing of itself', async () => {
    const { db, writer, log } = await migrated();
    await writer.run(() => log.append([brand(1, 'A')], {}));
    await expect(writer.run(() => log.append([brand(2, 'B'), { ...brand(1, 'again'), expectedVersion: 'no_stream' }], {}))).rejects.toThrow(ConcurrencyError);
    await expect(writer.run(() => log.append([edit(1, 'X', 5)], {}))).rejects.toThrow(/brand-1 is at version 1, expected 5/);
    await expect(writer.run(() => log.append([edit(3, 'X', 'stream_exists')], {}))).rejects.toThrow(ConcurrencyError);
    await writer.run(() => log.append([edit(1, 'A2', 1), { ...brand(2, 'B'), expectedVersion: 'no_stream' }], {}));
    const rows = await all(readEvents(db.pool));
    expect(rows.map((r) => [r.seq, r.stream, r.stream_version])).toEqual([
      [1, 'brand-1', 1],
      [2, 'brand-1', 2],
      [3, 'brand-2', 1],
    ]);
    expectIntactChain(rows);
  });

  test('a unit undone after it appended gives the head back: the next unit of its group chains onto the last event kept', async () => {
    const { db, writer, log } = await migrated();
    await writer.run(() => log.append([brand(1, 'A')], {}));
    const outcomes = await Promise.allSettled([
      writer.run(async () => {
        await log.append([brand(2, 'undone')], {});
        throw new Error('refused after appending');
      }),
      writer.run(() => log.append([brand(3, 'C')], {})),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled']);
    // A group whose only unit is undone leaves the head where it was too.
    await expect(
      writer.run(async () => {
        await log.append([brand(4, 'undone')], {});
        throw new Error('refused after appending');
      }),
    ).rejects.toThrow('refused after appending');
    await writer.run(() => log.append([brand(5, 'E')], {}));
    const rows = await all(readEvents(db.pool));
    expect(rows.map((r) => [r.seq, r.stream])).toEqual([
      [1, 'brand-1'],
      [2, 'brand-3'],
      [3, 'brand-5'],
    ]);
    expectIntactChain(rows);
    expect(await db.pool.sql('SELECT seq, hash FROM chain_head')).toEqual([{ seq: 3, hash: rows[2].hash }]);
  });

  test('refuses an append outside a unit of the writer, and an event whose data does not match its schema', async () => {
    const { db, writer, log } = await migrated();
    await expect(log.append([brand(1, 'A')], {})).rejects.toThrow(/inside a unit/);
    await expect(writer.run(() => log.append([{ stream: 'brand-1', type: 'BrandAdded', data: { id: 1 } as never }], {}))).rejects.toThrow();
    expect(await lastSeq(db.pool)).toBe(0);
  });

  test('the log refuses UPDATE, DELETE and TRUNCATE at the database level, and a stream version never repeats', async () => {
    const { db, writer, log } = await migrated();
    await writer.run(() => log.append([brand(1, 'A')], {}));
    await expect(db.session.sql("UPDATE events SET data = '{}' WHERE seq = 1")).rejects.toThrow(/append-only/);
    await expect(db.session.sql('DELETE FROM events')).rejects.toThrow(/append-only/);
    await expect(db.session.sql('TRUNCATE events')).rejects.toThrow(/append-only/);
    await expect(
      db.session.sql("INSERT INTO events (seq, stream, stream_version, type, schema_version, data, meta, recorded_at, hash) VALUES (9, 'brand-1', 1, 'BrandAdded', 1, '{}', '{}', '', '')"),
    ).rejects.toMatchObject({ code: '23505' });
    expect((await readStream(db.pool, 'brand-1'))[0].data).toContain('"name":"A"');
  });

  test('U+0000: PostgreSQL refuses it in a text column (22021); in event data JSON escapes it and it round-trips', async () => {
    const { db, writer, log } = await migrated();
    // Only a raw text column can carry it into the database: here the stream. Refused by PostgreSQL, that unit
    // fails with PostgreSQL's own error, as any refused statement; tradebook's validation is to refuse it first.
    const refused = writer.run(() => log.append([{ ...brand(1, 'A'), stream: 'brand-\u0000' }], {}));
    const kept = writer.run(() => log.append([brand(2, 'nul \u0000 inside')], {}));
    await expect(refused).rejects.toMatchObject({ code: '22021' });
    await kept;
    const [row] = await all(readEvents(db.pool));
    expect(row.data).toBe('{"id":2,"logo":null,"name":"nul \\u0000 inside"}');
    expect(JSON.parse(row.data).name).toBe('nul \u0000 inside');
    expectIntactChain([row]);
  });
});
