import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import { denseRank } from '../../../src/projections/dense-rank.ts';

/** A ranked table (and a served copy of its ranks) the way projectors use one: place, then insert what is new. */
function rankedTable(options: { partition?: string[]; highestBy?: 'id' | 'rank'; rememberHighest?: boolean } = {}) {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE items (kind TEXT NOT NULL, id INTEGER NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (kind, id))');
  db.exec('CREATE TABLE served (kind TEXT NOT NULL, id INTEGER NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (kind, id))');
  db.exec('CREATE INDEX items_position ON items (kind, position)');
  const ranks = denseRank(db, { table: 'items', rank: 'position', copies: ['served'], ...options });
  const find = db.prepare('SELECT position FROM items WHERE kind = ? AND id = ?').pluck();
  const inserts = ['items', 'served'].map((table) => db.prepare(`INSERT INTO ${table} (kind, id, position) VALUES (?, ?, ?)`));
  const key = (kind: string) => (options.partition ? [kind] : []);
  const add = (id: number, kind = 'a') => {
    const placed = ranks.place(key(kind), id, () => find.get(kind, id) as number | undefined);
    if (placed.rank !== undefined) for (const insert of inserts) insert.run(kind, id, placed.rank);
    return placed;
  };
  const remove = (id: number, kind = 'a') => {
    for (const table of ['items', 'served']) db.prepare(`DELETE FROM ${table} WHERE kind = ? AND id = ?`).run(kind, id);
    ranks.closeGap(key(kind), id);
  };
  const rows = (table = 'items') => db.prepare(`SELECT kind, id, position FROM ${table} ORDER BY kind, id`).raw().all();
  return { add, remove, rows, forget: ranks.forget };
}

describe('a dense rank in id order', () => {
  test('ids arriving in order take the next rank', () => {
    const t = rankedTable();
    expect([1, 2, 5].map((id) => t.add(id))).toEqual([1, 2, 3].map((rank) => ({ existing: undefined, rank })));
    expect(t.rows()).toEqual([['a', 1, 1], ['a', 2, 2], ['a', 5, 3]]);
  });

  test('an id below the highest takes its place in id order; the later rows move down, in the copies too', () => {
    const t = rankedTable();
    [2, 5, 7].forEach((id) => t.add(id));
    expect(t.add(4)).toEqual({ existing: undefined, rank: 2 });
    expect(t.add(1)).toEqual({ existing: undefined, rank: 1 });
    const ranked = [['a', 1, 1], ['a', 2, 2], ['a', 4, 3], ['a', 5, 4], ['a', 7, 5]];
    expect(t.rows()).toEqual(ranked);
    expect(t.rows('served')).toEqual(ranked);
  });

  test('placing an id again finds its row and moves nothing', () => {
    const t = rankedTable();
    [3, 6, 9].forEach((id) => t.add(id));
    const before = t.rows();
    expect(t.add(6)).toEqual({ existing: 2 });
    expect(t.add(9)).toEqual({ existing: 3 });
    expect(t.rows()).toEqual(before);
  });

  test('each partition is ranked on its own; a removed row closes its gap', () => {
    for (const highestBy of ['id', 'rank'] as const) {
      const t = rankedTable({ partition: ['kind'], highestBy });
      [[1, 'a'], [4, 'b'], [3, 'a'], [2, 'b'], [2, 'a']].forEach(([id, kind]) => t.add(id as number, kind as string));
      expect(t.rows()).toEqual([['a', 1, 1], ['a', 2, 2], ['a', 3, 3], ['b', 2, 1], ['b', 4, 2]]);
      t.remove(1, 'a');
      expect(t.rows()).toEqual([['a', 2, 1], ['a', 3, 2], ['b', 2, 1], ['b', 4, 2]]);
      expect(t.rows('served')).toEqual(t.rows());
      expect(t.add(5, 'a')).toEqual({ existing: undefined, rank: 3 });
    }
  });

  test('keeping the highest rows placed (rememberHighest) ranks alike, and after forget reads them again', () => {
    const sequence = (t: ReturnType<typeof rankedTable>) => {
      [[1, 'a'], [4, 'b'], [3, 'a'], [2, 'b'], [2, 'a'], [3, 'a'], [9, 'a']].forEach(([id, kind]) => t.add(id as number, kind as string));
      t.remove(9, 'a');
      t.add(5, 'a');
      t.remove(1, 'a');
      t.add(6, 'a');
      t.forget();
      t.add(7, 'b');
      return [t.rows(), t.rows('served')];
    };
    for (const highestBy of ['id', 'rank'] as const) {
      const kept = sequence(rankedTable({ partition: ['kind'], highestBy, rememberHighest: true }));
      expect(kept).toEqual(sequence(rankedTable({ partition: ['kind'], highestBy })));
      expect(kept[0]).toEqual([['a', 2, 1], ['a', 3, 2], ['a', 5, 3], ['a', 6, 4], ['b', 2, 1], ['b', 4, 2], ['b', 7, 3]]);
    }
  });
});
