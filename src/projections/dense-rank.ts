import type { SqlSession } from '../storage/sql.ts';

/** A partition's row with the highest id, and its rank. */
interface Highest {
  id: number;
  rank: number;
}

export interface DenseRankOptions {
  /** The table holding the rows (an `id` column and the rank column). */
  table: string;
  /** The rank column: 1, 2, 3, … in id order within a partition. */
  rank: string;
  /** Columns whose values split the table into independently ranked partitions (none: the whole table is one). */
  partition?: readonly string[];
  /**
   * The column an index finds a partition's highest row by: `id` where (partition…, id) is a key, the rank
   * column where only an index on (partition…, rank) exists. Either finds the same row: ranks follow ids.
   */
  highestBy?: 'id' | 'rank';
  /** Tables keeping the same ranks for the same rows (a served copy): they are shifted alike. */
  copies?: readonly string[];
  /**
   * Keep each partition's highest row as `place` leaves it, so ids arriving in order cost no seek. The caller
   * calls `forget` before its transaction ends (a rollback would leave the kept rows wrong) and changes the
   * table's rows only through `place` and `closeGap` until then.
   */
  rememberHighest?: boolean;
}

/** Values of the partition columns, in their order. */
export type Partition = readonly unknown[];

/** Where an id goes: the existing row, or the rank a new row takes (its room already made). */
export type Placement<T> = { existing: T; rank?: undefined } | { existing: undefined; rank: number };

/**
 * Keeps a rank column a dense rank in id order, so a page at any offset is an index range scan and a count is
 * the highest rank. Ids mostly arrive in order: a new highest id takes the next rank with one seek; an id below
 * the highest (an import) takes the count of lower ids plus one, and the later rows move one place down.
 */
export function denseRank(session: SqlSession, options: DenseRankOptions) {
  const { table, rank, partition = [], highestBy = 'id', copies = [], rememberHighest = false } = options;
  const where = (...more: string[]) => [...partition.map((column) => `${column} = ?`), ...more].join(' AND ');
  const last = `SELECT id, ${rank} FROM ${table} ${partition.length > 0 ? `WHERE ${where()} ` : ''}ORDER BY ${highestBy === 'rank' ? rank : 'id'} DESC LIMIT 1`;
  const lowerCount = `SELECT count(*) + 1 FROM ${table} WHERE ${where('id < ?')}`;
  const shift = (by: string) => [table, ...copies].map((t) => `UPDATE ${t} SET ${rank} = ${rank} ${by} WHERE ${where('id > ?')}`);
  const moveDown = shift('+ 1');
  const moveUp = shift('- 1');

  /** The partition's row with the highest id, if any. */
  const highest = async (key: Partition): Promise<Highest | undefined> => {
    const [row] = await session.rows<[number, number]>(last, key);
    return row && { id: row[0], rank: row[1] };
  };

  /** Partitions' highest rows as `place` left them, by the partition's values as JSON (only with `rememberHighest`). */
  const remembered = new Map<string, Highest>();
  const highestPlaced = async (key: Partition): Promise<Highest | undefined> => {
    if (!rememberHighest) return highest(key);
    const name = JSON.stringify(key);
    let top = remembered.get(name);
    if (top === undefined && (top = await highest(key)) !== undefined) remembered.set(name, top);
    return top;
  };

  /**
   * The rank `id` takes when it is above its partition's highest id (a new row: nothing to find, nothing moves),
   * kept as the partition's highest (`rememberHighest`); undefined when it is not above it.
   */
  const append = async (key: Partition, id: number): Promise<number | undefined> => {
    const top = await highestPlaced(key);
    if (top !== undefined && id <= top.id) return undefined;
    const placed = { id, rank: (top?.rank ?? 0) + 1 };
    if (rememberHighest) remembered.set(JSON.stringify(key), placed);
    return placed.rank;
  };

  /**
   * Places `id` in its partition. `find` looks for its row, only when the id is not above the highest (one above
   * cannot exist yet): a row found keeps its rank (applying an event twice changes nothing). Otherwise the rank
   * a new row takes, with the later rows already moved down to make room; the caller inserts the row.
   */
  async function place<T>(key: Partition, id: number, find: () => Promise<T | undefined>): Promise<Placement<T>> {
    const appended = await append(key, id);
    if (appended !== undefined) return { existing: undefined, rank: appended };
    const existing = await find();
    if (existing !== undefined) return { existing };
    // The later rows move: the partition's highest is read again next time.
    remembered.delete(JSON.stringify(key));
    const rankOfId = (await session.value<number>(lowerCount, [...key, id]))!;
    for (const statement of moveDown) await session.run(statement, [...key, id]);
    return { existing: undefined, rank: rankOfId };
  }

  /** After the row of `id` left the partition: the later rows move up one place. */
  const closeGap = async (key: Partition, id: number) => {
    remembered.delete(JSON.stringify(key));
    for (const statement of moveUp) await session.run(statement, [...key, id]);
  };

  /** Drops the highest rows kept (`rememberHighest`). */
  const forget = () => remembered.clear();

  return { append, place, closeGap, highest, forget };
}
