import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { MAX_PAGE_ROWS, type PartitionColumn, TOP_LEVEL, countIds, idCount, idCounts, idCountsTable, idPage, pageLimit } from '../../src/projections/id-counts.ts';
import { postgresDialect } from '../../src/storage/postgres/dialect.ts';
import { postgresSession } from '../../src/storage/postgres/session.ts';
import type { SqlSession } from '../../src/storage/sql.ts';
import { sqliteDialect } from '../../src/storage/sqlite/dialect.ts';
import { sqliteSession } from '../../src/storage/sqlite/session.ts';
import { describeEngines } from './postgres/engines.ts';

const PARTITION: PartitionColumn[] = [{ name: 'kind', type: 'text' }];
const PAGING = { rows: 'items', counts: 'item_counts', partition: PARTITION };
const KINDS = ['a', 'b'];

/** A table of ids in two partitions (`kind`), kept with its counts the way projectors keep theirs. */
function countedTable(session: SqlSession) {
  const counts = idCounts(session, 'item_counts', PARTITION);
  // The engine's page: its first column is the id (on PostgreSQL the `json` column, here the id too).
  const page = idPage(session.dialect, PAGING, 'SELECT id, id AS json FROM items WHERE kind = ? AND id >= (SELECT id FROM first_id) ORDER BY id');
  const ids = async (sql: string, params: unknown[]) => (await session.rows<[number]>(sql, params)).map(([id]) => id);
  return {
    async add(kind: string, id: number) {
      if ((await session.value('SELECT 1 FROM items WHERE kind = ? AND id = ?', [kind, id])) !== undefined) return;
      await session.run('INSERT INTO items (kind, id) VALUES (?, ?)', [kind, id]);
      counts.add([kind], id);
    },
    async remove(kind: string, id: number) {
      if ((await session.value('SELECT 1 FROM items WHERE kind = ? AND id = ?', [kind, id])) === undefined) return;
      await session.run('DELETE FROM items WHERE kind = ? AND id = ?', [kind, id]);
      counts.remove([kind], id);
    },
    persist: counts.persist,
    page: async (kind: string, offset: number, limit: number) => ids(page, [kind, offset, kind, pageLimit(limit)]),
    /** The kind's ids in order, read once: each page expected is its slice, as `ORDER BY id LIMIT … OFFSET …` gives it. */
    ordered: (kind: string) => ids('SELECT id FROM items WHERE kind = ? ORDER BY id', [kind]),
    count: async (kind: string) => (await session.value<number>(idCount(PAGING), [kind]))!,
    expectedCount: async (kind: string) => (await session.value<number>('SELECT count(*) FROM items WHERE kind = ?', [kind]))!,
    countRows: () => session.rows('SELECT kind, level, node, size FROM item_counts ORDER BY kind, level, node'),
  };
}

type Step = { op: 'add' | 'remove'; kind: string; id: number } | { op: 'move'; from: string; to: string; id: number } | { op: 'persist' };

/**
 * Ids clustered (neighbours share ranges), clustered far from 0 (the walk starts in a range of a middle level that
 * is not the first), and spread (up to 2^53 - 1, every level's ranges), in any order.
 */
const anId = fc.oneof(
  fc.integer({ min: 1, max: 300 }),
  fc.integer({ min: 1, max: 20_000 }),
  fc.integer({ min: 2 ** 40 - 3_000, max: 2 ** 40 + 3_000 }),
  fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
);
const aKind = fc.constantFrom(...KINDS);
const aStep: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('add' as const), kind: aKind, id: anId }), weight: 6 },
  { arbitrary: fc.record({ op: fc.constant('remove' as const), kind: aKind, id: anId }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('move' as const), from: aKind, to: aKind, id: anId }), weight: 2 },
  { arbitrary: fc.constant({ op: 'persist' as const }), weight: 1 },
);

/** Runs the steps (a removed or moved id is one added earlier when there is one), then compares every page and count. */
async function checkSteps(t: ReturnType<typeof countedTable>, steps: Step[]) {
  const added: [string, number][] = [];
  for (const step of steps) {
    if (step.op === 'persist') await t.persist();
    else if (step.op === 'add') {
      await t.add(step.kind, step.id);
      added.push([step.kind, step.id]);
    } else {
      const [kind, id] = added.length > 0 ? added[step.id % added.length] : [step.op === 'move' ? step.from : step.kind, step.id];
      await t.remove(kind, id);
      if (step.op === 'move') await t.add(step.to, id);
    }
  }
  await t.persist();
  for (const kind of KINDS) {
    const count = await t.count(kind);
    expect(count).toBe(await t.expectedCount(kind));
    const ordered = await t.ordered(kind);
    for (const limit of [1, 7]) {
      for (let offset = 0; offset <= count + 1; offset++) expect(await t.page(kind, offset, limit)).toEqual(ordered.slice(offset, offset + limit));
    }
  }
}

/** The counts kept up id by id through `steps`, and those a build writes at once from the same rows (`countIds`), every column. */
async function keptAndCounted(session: SqlSession, steps: Step[]) {
  const t = countedTable(session);
  await checkSteps(t, steps);
  await countIds(session, { rows: 'items', counts: 'item_counts_built', partition: PARTITION });
  const all = (table: string) => session.rows(`SELECT kind, level, node, size, before FROM ${table} ORDER BY kind, level, node`);
  return { kept: await all('item_counts'), counted: await all('item_counts_built') };
}

/** Pages as long as a page may be, across ranges: whole; a longer one is refused before it is asked. */
async function checkLongestPages(t: ReturnType<typeof countedTable>) {
  for (let id = 3; id <= 3 * 250; id += 3) await t.add('a', id);
  await t.persist();
  const ordered = await t.ordered('a');
  for (const offset of [0, 1, 63, 100, 150, 249, 250]) expect(await t.page('a', offset, MAX_PAGE_ROWS)).toEqual(ordered.slice(offset, offset + MAX_PAGE_ROWS));
  await expect(t.page('a', 0, MAX_PAGE_ROWS + 1)).rejects.toThrow(RangeError);
}

const sqlite = () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE items (kind TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (kind, id)) WITHOUT ROWID');
  db.exec(idCountsTable('item_counts', PARTITION, sqliteDialect));
  return { db, t: countedTable(sqliteSession(db)) };
};

describe('counts of ids in nested ranges (SQLite)', () => {
  test('every page and count equals ORDER BY id LIMIT … OFFSET …, over adds, removals and moves in any order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(aStep, { maxLength: 120 }), async (steps) => {
        const { db, t } = sqlite();
        await checkSteps(t, steps);
        db.close();
      }),
      { numRuns: 60 },
    );
  });

  test('counted at once from the rows, as a build does, they equal the counts kept up id by id', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(aStep, { maxLength: 120 }), async (steps) => {
        const { db } = sqlite();
        db.exec(idCountsTable('item_counts_built', PARTITION, sqliteDialect));
        const { kept, counted } = await keptAndCounted(sqliteSession(db), steps);
        expect(counted).toEqual(kept);
        db.close();
      }),
      { numRuns: 60 },
    );
  });

  test('a page holds up to the longest a page may be, and no more', async () => {
    const { db, t } = sqlite();
    await checkLongestPages(t);
    db.close();
  });

  test('the counts are the same whatever order the ids came in and however the writes were grouped', async () => {
    const ids = [5, 64, 63, 4096, 1, 4095, 2 ** 40, 2 ** 53 - 1, 700];
    const rowsAfter = async (order: number[], persistEach: boolean) => {
      const { db, t } = sqlite();
      for (const id of order) {
        await t.add('a', id);
        if (persistEach) await t.persist();
      }
      await t.add('a', 99);
      await t.remove('a', 99);
      await t.persist();
      const rows = await t.countRows();
      db.close();
      return rows;
    };
    const ascending = await rowsAfter([...ids].sort((x, y) => x - y), false);
    expect(await rowsAfter([...ids].reverse(), true)).toEqual(ascending);
    expect(await rowsAfter([700, 1, 2 ** 40, 64, 5, 2 ** 53 - 1, 63, 4096, 4095], false)).toEqual(ascending);
    // No empty range is left behind: 99's ranges of level 1 and 2 hold nothing else.
    expect(ascending).not.toContainEqual(['a', 1, 1, 0]);
    expect(ascending).toContainEqual(['a', TOP_LEVEL, 0, ids.length]);
  });

  test('an id placed below the highest changes at most the same number of rows in a table of 1,000 and of 100,000', async () => {
    const touched = async (size: number) => {
      const { db, t } = sqlite();
      const insert = db.prepare('INSERT INTO items (kind, id) VALUES (?, ?)');
      const counts = idCounts(sqliteSession(db), 'item_counts', PARTITION);
      db.transaction(() => {
        for (let id = 2; id <= 2 * size; id += 2) insert.run('a', id);
      })();
      for (let id = 2; id <= 2 * size; id += 2) counts.add(['a'], id);
      await counts.persist();
      const before = db.prepare('SELECT total_changes()').pluck().get() as number;
      await t.add('a', 3); // below all but one
      await t.persist();
      const changed = (db.prepare('SELECT total_changes()').pluck().get() as number) - before;
      expect(await t.page('a', 1, 3)).toEqual([3, 4, 6]);
      db.close();
      return changed;
    };
    // The row, a size a level, and at most the 63 ranges after its own a level: whatever the table's size.
    const bound = 1 + TOP_LEVEL * 64;
    expect(await touched(1_000)).toBeLessThanOrEqual(bound);
    expect(await touched(100_000)).toBeLessThanOrEqual(bound);
  });

  test('ids in order change one size a level and nothing else', async () => {
    const { db, t } = sqlite();
    for (let id = 1; id <= 5_000; id++) await t.add('a', id);
    await t.persist();
    const before = db.prepare('SELECT total_changes()').pluck().get() as number;
    await t.add('a', 5_001);
    await t.persist();
    expect((db.prepare('SELECT total_changes()').pluck().get() as number) - before).toBe(1 + TOP_LEVEL);
    db.close();
  });
  test('ids added in order, persisted in any grouping and with the highest removed now and then, leave the rows of one persist of them all', async () => {
    const withBefore = (db: Database.Database) => db.prepare('SELECT kind, level, node, size, before FROM item_counts ORDER BY kind, level, node').raw().all();
    const aRun = fc.array(fc.record({ gap: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 5_000 })), persist: fc.boolean(), dropHighest: fc.boolean() }), { maxLength: 150 });
    await fc.assert(
      fc.asyncProperty(aRun, async (run) => {
        const { db, t } = sqlite();
        const kept: number[] = [];
        let id = 0;
        for (const step of run) {
          id += step.gap;
          await t.add('a', id);
          kept.push(id);
          if (step.dropHighest && kept.length > 1) {
            await t.remove('a', kept.pop()!);
            await t.persist();
          }
          if (step.persist) await t.persist();
        }
        await t.persist();
        const at = sqlite();
        for (const keptId of kept) await at.t.add('a', keptId);
        await at.t.persist();
        expect(withBefore(db)).toEqual(withBefore(at.db));
        db.close();
        at.db.close();
      }),
      { numRuns: 60 },
    );
  });

  test('an id after the highest, in the last range of each level, is one read and one write', async () => {
    const db = new Database(':memory:');
    db.exec(idCountsTable('item_counts', PARTITION, sqliteDialect));
    const session = sqliteSession(db);
    const statements: string[] = [];
    const counted = { ...session, value: <T,>(text: string, params?: readonly unknown[]) => (statements.push(text), session.value<T>(text, params)), run: (text: string, params?: readonly unknown[]) => (statements.push(text), session.run(text, params)) };
    const counts = idCounts(counted, 'item_counts', PARTITION);
    for (let id = 1; id <= 100; id++) counts.add(['a'], id);
    await counts.persist();
    statements.length = 0;
    counts.add(['a'], 101);
    await counts.persist();
    expect(statements).toHaveLength(2);
    // Into a new level-1 range: its `before` is set.
    counts.add(['a'], 128);
    await counts.persist();
    expect(db.prepare('SELECT before FROM item_counts WHERE level = 1 AND node = 2').pluck().get()).toBe(101);
    db.close();
  });
});

describeEngines('counts of ids in nested ranges', (database) => {
  test('every page and count equals ORDER BY id LIMIT … OFFSET …, over adds, removals and moves in any order', async () => {
    const session = postgresSession(() => database().session);
    await fc.assert(
      fc.asyncProperty(fc.array(aStep, { maxLength: 80 }), async (steps) => {
        for (const table of ['items', 'item_counts']) await database().session.run(`DROP TABLE IF EXISTS ${table}`);
        await database().session.run('CREATE TABLE items (kind TEXT NOT NULL, id BIGINT NOT NULL, PRIMARY KEY (kind, id))');
        await database().session.run(idCountsTable('item_counts', PARTITION, postgresDialect));
        await checkSteps(countedTable(session), steps);
      }),
      { numRuns: 25 },
    );
  });

  test('counted at once from the rows, as a build does, they equal the counts kept up id by id', async () => {
    const session = postgresSession(() => database().session);
    await fc.assert(
      fc.asyncProperty(fc.array(aStep, { maxLength: 80 }), async (steps) => {
        for (const table of ['items', 'item_counts', 'item_counts_built']) await database().session.run(`DROP TABLE IF EXISTS ${table}`);
        await database().session.run('CREATE TABLE items (kind TEXT NOT NULL, id BIGINT NOT NULL, PRIMARY KEY (kind, id))');
        for (const table of ['item_counts', 'item_counts_built']) await database().session.run(idCountsTable(table, PARTITION, postgresDialect));
        const { kept, counted } = await keptAndCounted(session, steps);
        expect(counted).toEqual(kept);
      }),
      { numRuns: 15 },
    );
  });

  test('a page holds up to the longest a page may be, and no more', async () => {
    for (const table of ['items', 'item_counts']) await database().session.run(`DROP TABLE IF EXISTS ${table}`);
    await database().session.run('CREATE TABLE items (kind TEXT NOT NULL, id BIGINT NOT NULL, PRIMARY KEY (kind, id))');
    await database().session.run(idCountsTable('item_counts', PARTITION, postgresDialect));
    await checkLongestPages(countedTable(postgresSession(() => database().session)));
  });
});
