import { describe, expect, test } from 'vitest';
import { ConcurrencyError, type EventRow } from '../../../src/events/store.ts';
import { readEvents, readStream } from '../../../src/storage/sqlite/event-log.ts';
import { ok } from '../../../src/lib/result.ts';
import { testService } from '../../helpers.ts';

const brand = (id: number, name: string) => ({ stream: `brand-${id}`, type: 'BrandAdded' as const, data: { id, name, logo: null } });

describe('the event store', () => {
  // The chain itself is the engine contract's (engine-contract.test.ts); these are the readers rebuild and copy use.
  test('the synchronous readers give the log in seq order and a stream in version order', async () => {
    const { tb } = await testService();
    await tb.write(async () => ok(await tb.log.append([brand(1, 'A'), brand(2, 'B')], { keyId: 1 })));
    await tb.write(async () => ok(await tb.log.append([{ stream: 'brand-1', type: 'BrandEdited', data: { id: 1, name: 'A2' } }], { keyId: 1 })));
    expect([...readEvents(tb.db)].map((r) => [r.seq, r.stream, r.stream_version])).toEqual([
      [1, 'brand-1', 1],
      [2, 'brand-2', 1],
      [3, 'brand-1', 2],
    ]);
    expect(readStream(tb.db, 'brand-1').map((r: EventRow) => r.type)).toEqual(['BrandAdded', 'BrandEdited']);
  });

  test('each event may carry its own meta; a list of metas of another length is refused before anything is written', async () => {
    const { tb } = await testService();
    const lines = [{ source: 'import', importLine: 7 }, { source: 'import', importLine: 9 }];
    await tb.write(async () => ok(await tb.log.append([brand(1, 'A'), brand(2, 'B')], lines)));
    expect([...readEvents(tb.db)].map((r) => JSON.parse(r.meta))).toEqual(lines);
    await expect(tb.write(async () => ok(await tb.log.append([brand(3, 'C'), brand(4, 'D')], [lines[0]])))).rejects.toThrow(/1 metas given for 2 events/);
    expect([...readEvents(tb.db)]).toHaveLength(2);
  });

  test('refuses an append outside a transaction', async () => {
    const { tb } = await testService();
    await expect(tb.log.append([brand(1, 'A')], {})).rejects.toThrow(/inside a transaction/);
  });

  test('checks the expected stream version and rolls the whole append back', async () => {
    const { tb } = await testService();
    await tb.write(async () => ok(await tb.log.append([brand(1, 'A')], {})));
    await expect(tb.write(async () => ok(await tb.log.append([brand(2, 'B'), { ...brand(1, 'again'), expectedVersion: 'no_stream' as const }], {})))).rejects.toThrow(
      ConcurrencyError,
    );
    await expect(tb.write(async () => ok(await tb.log.append([{ stream: 'brand-1', type: 'BrandEdited', data: { id: 1, name: 'X' }, expectedVersion: 5 }], {})))).rejects.toThrow(
      ConcurrencyError,
    );
    expect([...readEvents(tb.db)]).toHaveLength(1);
    expect(await tb.brands.byId(2)).toBeUndefined();
  });

  test('refuses an event whose data does not match its schema', async () => {
    const { tb } = await testService();
    await expect(tb.write(async () => ok(await tb.log.append([{ stream: 'brand-1', type: 'BrandAdded', data: { id: 1 } as never }], {})))).rejects.toThrow();
    expect([...readEvents(tb.db)]).toHaveLength(0);
  });

  test('the log refuses UPDATE and DELETE at the database level', async () => {
    const { tb } = await testService();
    await tb.write(async () => ok(await tb.log.append([brand(1, 'A')], {})));
    expect(() => tb.db.prepare("UPDATE events SET data = '{}' WHERE seq = 1").run()).toThrow(/append-only/);
    expect(() => tb.db.prepare('DELETE FROM events').run()).toThrow(/append-only/);
    expect(readEvents(tb.db).next().value?.data).toContain('"name":"A"');
  });

  test('a stream version can never repeat', async () => {
    const { tb } = await testService();
    await tb.write(async () => ok(await tb.log.append([brand(1, 'A')], {})));
    expect(() =>
      tb.db
        .prepare("INSERT INTO events (seq, stream, stream_version, type, schema_version, data, meta, recorded_at, hash) VALUES (9, 'brand-1', 1, 'BrandAdded', 1, '{}', '{}', '', '')")
        .run(),
    ).toThrow(/UNIQUE/);
  });
});
