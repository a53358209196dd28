import { describe, expect, test } from 'vitest';
import { NotDurableError, ReadModelsDifferError, StorageBusyError, StorageFault } from '../../../src/storage/errors.ts';
import { type Sql, openPostgres } from '../../../src/storage/postgres/connection.ts';
import { storageErrorOf } from '../../../src/storage/postgres/errors.ts';
import { PostgresEventLog, lastSeq } from '../../../src/storage/postgres/event-log.ts';
import { migrate } from '../../../src/storage/postgres/migrate.ts';
import { PostgresWriter, UNITS_PER_GROUP } from '../../../src/storage/postgres/writer.ts';
import { type TestDatabase, describeEngines } from './engines.ts';

const brand = (id: number) => ({ stream: `brand-${id}`, type: 'BrandAdded' as const, data: { id, name: `brand ${id}`, logo: null } });

describeEngines('the PostgreSQL writer', (database, real) => {
  async function notes() {
    const db = database();
    await migrate(db.session);
    await db.session.sql('CREATE TABLE notes (id bigint PRIMARY KEY, text text NOT NULL)');
    const insert = (id: number, text: string) => db.session.sql('INSERT INTO notes (id, text) VALUES ($1, $2)', [id, text]);
    const texts = async () => (await db.pool.sql<{ text: string }>('SELECT text FROM notes ORDER BY id')).map((row) => row.text);
    return { db, insert, texts };
  }

  test('units submitted in the same turn share one transaction; a unit that throws is undone alone, the others stand', async () => {
    const { db, insert, texts } = await notes();
    const writer = new PostgresWriter(db.session);
    const outcomes = await Promise.allSettled([
      writer.run(async () => (await insert(1, 'kept'), 'first')),
      writer.run(async () => {
        await insert(2, 'undone');
        throw new Error('refused');
      }),
      // A statement PostgreSQL refuses (the key is taken) is undone alone too.
      writer.run(() => insert(1, 'duplicate')),
      writer.run(async () => (await insert(3, 'also kept'), 'third')),
    ]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual(['first', 'refused', expect.stringMatching(/duplicate key/), 'third']);
    expect(writer.commits).toBe(1);
    expect(await texts()).toEqual(['kept', 'also kept']);
  });

  test('a statement sent without waiting for its answer fails the unit that sent it, with its own error; the others stand', async () => {
    const { db, texts } = await notes();
    const writer = new PostgresWriter(db.session);
    const send = (id: number, text: string) => writer.session.run('INSERT INTO notes (id, text) VALUES ($1, $2)', [id, text]);
    const count = () => writer.session.values('SELECT count(*) FROM notes');
    const outcomes = await Promise.allSettled([
      writer.run(async () => (await send(1, 'kept'), 'first')),
      // The duplicate's failure arrives with the next statement awaited, which failed only because of it.
      writer.run(async () => {
        await send(1, 'duplicate');
        await send(2, 'after the duplicate');
        await count();
      }),
      // Nothing awaited after it: the unit's end waits for it.
      writer.run(async () => void (await send(1, 'duplicate again'))),
      writer.run(async () => (await send(3, 'also kept'), 'fourth')),
    ]);
    const answers = outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message));
    expect(answers).toEqual(['first', expect.stringMatching(/duplicate key/), expect.stringMatching(/duplicate key/), 'fourth']);
    expect(writer.commits).toBe(1);
    expect(await texts()).toEqual(['kept', 'also kept']);
    // A unit alone (no savepoint) is undone with its group, and the next group starts clean.
    await expect(writer.run(async () => void (await send(3, 'duplicate')))).rejects.toThrow(/duplicate key/);
    await writer.run(() => send(4, 'next'));
    expect(await texts()).toEqual(['kept', 'also kept', 'next']);
  });

  test('a unit that throws while a statement it sent is still on its way leaves nothing of its failure to the units after it', async () => {
    const { db, texts } = await notes();
    const writer = new PostgresWriter(db.session);
    const send = (id: number, text: string) => writer.session.run('INSERT INTO notes (id, text) VALUES ($1, $2)', [id, text]);
    await writer.run(() => send(1, 'kept'));
    const outcomes = await Promise.allSettled([
      writer.run(async () => {
        await send(1, 'duplicate');
        throw new Error('refused');
      }),
      writer.run(async () => {
        await send(2, 'next unit');
        return (await writer.session.values<[number]>('SELECT count(*) FROM notes'))[0][0];
      }),
    ]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual(['refused', 2]);
    expect(await texts()).toEqual(['kept', 'next unit']);
  });

  describe('a COMMIT whose answer is lost (its connection closed): what became of it is asked of another connection', () => {
    const lost = () => Object.assign(new Error('write CONNECTION_CLOSED'), { code: 'CONNECTION_CLOSED' });
    /** The writer's connection, with COMMIT replaced by `commit` and its answer lost. */
    const losingCommit = (db: TestDatabase, commit: () => Promise<unknown>): Sql => ({
      ...db.session,
      sql: async <Row extends object>(text: string, params?: readonly unknown[]) => {
        if (text !== 'COMMIT') return db.session.sql<Row>(text, params);
        await commit();
        throw lost();
      },
    });

    test('committed: the units stand and are acknowledged', async () => {
      const { db, texts } = await notes();
      const writer = new PostgresWriter(losingCommit(db, () => db.session.sql('COMMIT')), { fateOn: db.pool });
      const send = (id: number) => writer.session.run('INSERT INTO notes (id, text) VALUES ($1, $2)', [id, `note ${id}`]);
      expect(await Promise.all([writer.run(async () => (await send(1), 'first')), writer.run(async () => (await send(2), 'second'))])).toEqual(['first', 'second']);
      expect(await texts()).toEqual(['note 1', 'note 2']);
    });

    test('aborted before it took effect: busy, nothing applied', async () => {
      const { db, texts } = await notes();
      const writer = new PostgresWriter(losingCommit(db, () => db.session.sql('ROLLBACK')), { fateOn: db.pool });
      await expect(writer.run(() => writer.session.run("INSERT INTO notes (id, text) VALUES (1, 'lost')"))).rejects.toThrow(StorageBusyError);
      expect(await texts()).toEqual([]);
    });

    test('still undecided, or no other connection to ask: never acknowledged, never called nothing applied', async () => {
      const { db } = await notes();
      // The transaction is left open: PostgreSQL reports it in progress for as long as it is asked.
      const undecided = new PostgresWriter(losingCommit(db, async () => {}), { fateOn: db.pool });
      await expect(undecided.run(() => undecided.session.run("INSERT INTO notes (id, text) VALUES (1, 'unknown')"))).rejects.toThrow(NotDurableError);
      const unasked = new PostgresWriter(losingCommit(db, () => db.session.sql('COMMIT')));
      await expect(unasked.run(() => unasked.session.run("INSERT INTO notes (id, text) VALUES (2, 'unknown')"))).rejects.toThrow(NotDurableError);
    });
  });

  test(`a group holds at most ${UNITS_PER_GROUP} units (savepoints), the rest go in the next`, async () => {
    const { db, insert, texts } = await notes();
    const writer = new PostgresWriter(db.session);
    await Promise.all(Array.from({ length: 2 * UNITS_PER_GROUP + 1 }, (_, i) => writer.run(() => insert(i, `note ${i}`))));
    expect(writer.commits).toBe(3);
    expect(await texts()).toHaveLength(2 * UNITS_PER_GROUP + 1);
  });

  test('units that settle at commit go first, in a group of their own that commits at synchronous_commit=off; the others at on', async () => {
    const { db, insert, texts } = await notes();
    const writer = new PostgresWriter(db.session);
    const ran: string[] = [];
    const unit = (id: number, settles: 'durable' | 'committed') =>
      writer.run(async () => {
        ran.push(`${id} ${settles}`);
        await insert(id, settles);
        // The server's own setting for the transaction the unit runs in.
        return (await writer.session.values<[string]>("SELECT current_setting('synchronous_commit')"))[0][0];
      }, settles);
    const settings = await Promise.all([unit(1, 'durable'), unit(2, 'committed'), unit(3, 'durable'), unit(4, 'committed')]);
    expect(settings).toEqual(['on', 'off', 'on', 'off']);
    expect(ran).toEqual(['2 committed', '4 committed', '1 durable', '3 durable']);
    expect(writer.commits).toBe(2);
    expect(await texts()).toEqual(['durable', 'committed', 'durable', 'committed']);
  });

  test('units that settle at commit arriving while a group commits wait for the units queued before them: tokens never hold writes back', async () => {
    const { db } = await notes();
    const writer = new PostgresWriter(db.session);
    const ran: string[] = [];
    let later: Promise<unknown> | undefined;
    await Promise.all([
      writer.run(() => void ran.push('write')),
      writer.run(() => {
        ran.push('first token');
        later = writer.run(() => void ran.push('later token'), 'committed');
      }, 'committed'),
    ]);
    await later;
    expect(ran).toEqual(['first token', 'write', 'later token']);
  });

  test('a database that refuses writes fails every unit of the group with the read-only storage fault, and nothing is applied', async () => {
    const { db, insert, texts } = await notes();
    const writer = new PostgresWriter(db.session);
    // As a standby or a database set read-only answers: 25006.
    await db.session.sql('SET default_transaction_read_only = on');
    const outcomes = await Promise.allSettled([writer.run(() => insert(1, 'a')), writer.run(() => insert(2, 'b'))]);
    for (const outcome of outcomes) expect(outcome).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ kind: 'read-only' }) });
    await db.session.sql('SET default_transaction_read_only = off');
    await writer.run(() => insert(3, 'c'));
    expect(await texts()).toEqual(['c']);
  });

  test('only what a unit calls is inside it: a call made meanwhile by another request reads on the pool and may not write', async () => {
    const { db } = await notes();
    const writer = new PostgresWriter(db.session);
    // An object of its own: on PGlite the pool and the session are the same connection.
    const pool = { ...db.pool };
    let entered!: () => void;
    let leave!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const left = new Promise<void>((resolve) => (leave = resolve));
    const unit = writer.run(async () => {
      entered();
      await left;
      return writer.readsOn(pool) === writer.session && writer.writesFor('a note') === writer.session;
    });
    await inside;
    expect(writer.readsOn(pool)).toBe(pool);
    expect(() => writer.writesFor('a note')).toThrow('a note must run inside a unit of the writer');
    leave();
    expect(await unit).toBe(true);
  });

  test('refuses to write when the chain head has lost its row: there would be no lock to take', async () => {
    const { db } = await notes();
    await db.session.sql('DELETE FROM chain_head');
    await expect(new PostgresWriter(db.session).run(() => 1)).rejects.toThrow(/chain_head table has lost its row/);
  });

  test("a writer keeping read models of other versions than the database's is refused, nothing applied, and says why", async () => {
    const { db, insert, texts } = await notes();
    await new PostgresWriter(db.session, { readModels: 'products@1 documents@3' }).run(() => insert(1, 'first release'));
    const [{ projectors }] = await db.pool.sql<{ projectors: string }>('SELECT projectors FROM chain_head');
    expect(projectors).toBe('products@1 documents@3');

    const newer = new PostgresWriter(db.session, { readModels: 'products@1 documents@4' });
    const refused = newer.run(() => insert(2, 'next release'));
    await expect(refused).rejects.toThrow(ReadModelsDifferError);
    await expect(refused).rejects.toThrow('this server keeps read models products@1 documents@4, the database\'s are products@1 documents@3');
    // A writer that keeps no read models (keys from the command line) is not concerned.
    await new PostgresWriter(db.session).run(() => insert(3, 'a key'));
    expect(await texts()).toEqual(['first release', 'a key']);
  });

  test.runIf(real)('the chain head locked by another connection past the budget fails the group as busy, nothing applied', async () => {
    const db = database();
    await migrate(db.session);
    const writer = new PostgresWriter(db.session, { lockBudgetMs: 300 });
    const appending = new PostgresEventLog(writer, Date.now);
    const other = openPostgres(db.url!);
    try {
      await other.session.sql('BEGIN');
      await other.session.sql('SELECT seq FROM chain_head WHERE id = 1 FOR UPDATE');
      const started = Date.now();
      const outcomes = await Promise.allSettled([writer.run(() => appending.append([brand(1)], {})), writer.run(() => appending.append([brand(2)], {}))]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
      for (const outcome of outcomes) expect(outcome).toMatchObject({ status: 'rejected', reason: expect.any(StorageBusyError) });
      expect(await lastSeq(db.pool)).toBe(0);
      await other.session.sql('ROLLBACK');
      await writer.run(() => appending.append([brand(3)], {}));
      expect(await lastSeq(db.pool)).toBe(1);
    } finally {
      await other.close();
    }
  });

  test.runIf(real)('a lock waited for inside a unit past the budget fails the whole group as busy: the units before it are not applied', async () => {
    const db = database();
    await migrate(db.session);
    const writer = new PostgresWriter(db.session, { lockBudgetMs: 300 });
    const log = new PostgresEventLog(writer, Date.now);
    const other = openPostgres(db.url!);
    try {
      // Another connection's uncommitted key: inserting the same one waits for its transaction to end.
      await other.session.sql('BEGIN');
      await other.session.sql("INSERT INTO api_keys (id, name, scope, key_hash, created_at) VALUES (1, 'k', 'read', 'h', '')");
      const outcomes = await Promise.allSettled([
        writer.run(() => log.append([brand(1)], {})),
        writer.run(() => db.session.sql("INSERT INTO api_keys (id, name, scope, key_hash, created_at) VALUES (1, 'k', 'read', 'h', '')")),
      ]);
      for (const outcome of outcomes) expect(outcome).toMatchObject({ status: 'rejected', reason: expect.any(StorageBusyError) });
      expect(await lastSeq(db.pool)).toBe(0);
      expect(await db.pool.sql('SELECT seq FROM chain_head')).toEqual([{ seq: 0 }]);
    } finally {
      await other.session.sql('ROLLBACK');
      await other.close();
    }
  });
});

test("PostgreSQL's storage errors become the engine-neutral ones; any other error is left as it is", () => {
  const error = (code: string) => Object.assign(new Error(`error ${code}`), { code });
  expect(storageErrorOf(error('53100'))).toMatchObject({ kind: 'full' });
  expect(storageErrorOf(error('25006'))).toMatchObject({ kind: 'read-only' });
  expect(storageErrorOf(error('58030'))).toMatchObject({ kind: 'io' });
  expect(storageErrorOf(error('55P03'))).toBeInstanceOf(StorageBusyError);
  expect(storageErrorOf(error('23505'))).toBeUndefined();
  expect(storageErrorOf(new Error('no code'))).toBeUndefined();
  expect(storageErrorOf(new StorageFault('full', 'x'))).toBeInstanceOf(StorageFault);
});
