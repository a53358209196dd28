import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import { denseRank } from '../../../src/projections/dense-rank.ts';
import { sqliteSession } from '../../../src/storage/sqlite/session.ts';

/** Each of `items` through `step`, one after another. */
async function each<T>(items: T[], step: (item: T) => Promise<unknown>): Promise<unknown[]> {
  const done: unknown[] = [];
  for (const item of items) done.push(await step(item));
  return done;
}

/** A ranked table (and a served copy of its ranks) the way projectors use one: place, then insert what is new. */
function rankedTable(options: { partition?: string[]; highestBy?: 'id' | 'rank'; rememberHighest?: boolean } = {}) {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE items (kind TEXT NOT NULL, id INTEGER NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (kind, id))');
  db.exec('CREATE TABLE served (kind TEXT NOT NULL, id INTEGER NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (kind, id))');
  db.exec('CREATE INDEX items_position ON items (kind, position)');
  const ranks = denseRank(sqliteSession(db), { table: 'items', rank: 'position', copies: ['served'], ...options });
  const find = db.prepare('SELECT position FROM items WHERE kind = ? AND id = ?').pluck();
  const inserts = ['items', 'served'].map((table) => db.prepare(`INSERT INTO ${table} (kind, id, position) VALUES (?, ?, ?)`));
  const key = (kind: string) => (options.partition ? [kind] : []);
  const add = async (id: number, kind = 'a') => {
    const placed = await ranks.place(key(kind), id, async () => find.get(kind, id) as number | undefined);
    if (placed.rank !== undefined) for (const insert of inserts) insert.run(kind, id, placed.rank);
    return placed;
  };
  const remove = async (id: number, kind = 'a') => {
    for (const table of ['items', 'served']) db.prepare(`DELETE FROM ${table} WHERE kind = ? AND id = ?`).run(kind, id);
    await ranks.closeGap(key(kind), id);
  };
  const rows = (table = 'items') => db.prepare(`SELECT kind, id, position FROM ${table} ORDER BY kind, id`).raw().all();
  return { add, remove, rows, forget: ranks.forget };
}

describe('a dense rank in id order', () => {
  test('ids arriving in order take the next rank', async () => {
    const t = rankedTable();
    expect(await each([1, 2, 5], (id) => t.add(id))).toEqual([1, 2, 3].map((rank) => ({ existing: undefined, rank })));
    expect(t.rows()).toEqual([['a', 1, 1], ['a', 2, 2], ['a', 5, 3]]);
  });

  test('an id below the highest takes its place in id order; the later rows move down, in the copies too', async () => {
    const t = rankedTable();
    await each([2, 5, 7], (id) => t.add(id));
    expect(await t.add(4)).toEqual({ existing: undefined, rank: 2 });
    expect(await t.add(1)).toEqual({ existing: undefined, rank: 1 });
    const ranked = [['a', 1, 1], ['a', 2, 2], ['a', 4, 3], ['a', 5, 4], ['a', 7, 5]];
    expect(t.rows()).toEqual(ranked);
    expect(t.rows('served')).toEqual(ranked);
  });

  test('placing an id again finds its row and moves nothing', async () => {
    const t = rankedTable();
    await each([3, 6, 9], (id) => t.add(id));
    const before = t.rows();
    expect(await t.add(6)).toEqual({ existing: 2 });
    expect(await t.add(9)).toEqual({ existing: 3 });
    expect(t.rows()).toEqual(before);
  });

  test('each partition is ranked on its own; a removed row closes its gap', async () => {
    for (const highestBy of ['id', 'rank'] as const) {
      const t = rankedTable({ partition: ['kind'], highestBy });
      await each([[1, 'a'], [4, 'b'], [3, 'a'], [2, 'b'], [2, 'a']], ([id, kind]) => t.add(id as number, kind as string));
      expect(t.rows()).toEqual([['a', 1, 1], ['a', 2, 2], ['a', 3, 3], ['b', 2, 1], ['b', 4, 2]]);
      await t.remove(1, 'a');
      expect(t.rows()).toEqual([['a', 2, 1], ['a', 3, 2], ['b', 2, 1], ['b', 4, 2]]);
      expect(t.rows('served')).toEqual(t.rows());
      expect(await t.add(5, 'a')).toEqual({ existing: undefined, rank: 3 });
    }
  });

  test('keeping the highest rows placed (rememberHighest) ranks alike, and after forget reads them again', async () => {
    const sequence = async (t: ReturnType<typeof rankedTable>) => {
      await each([[1, 'a'], [4, 'b'], [3, 'a'], [2, 'b'], [2, 'a'], [3, 'a'], [9, 'a']], ([id, kind]) => t.add(id as number, kind as string));
      await t.remove(9, 'a');
      await t.add(5, 'a');
      await t.remove(1, 'a');
      await t.add(6, 'a');
      t.forget();
      await t.add(7, 'b');
      return [t.rows(), t.rows('served')];
    };
    for (const highestBy of ['id', 'rank'] as const) {
      const kept = await sequence(rankedTable({ partition: ['kind'], highestBy, rememberHighest: true }));
      expect(kept).toEqual(await sequence(rankedTable({ partition: ['kind'], highestBy })));
      expect(kept[0]).toEqual([['a', 2, 1], ['a', 3, 2], ['a', 5, 3], ['a', 6, 4], ['b', 2, 1], ['b', 4, 2], ['b', 7, 3]]);
    }
  });
});
