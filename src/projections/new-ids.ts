import { type SqlSession, byCount, inChunks, valueList } from '../storage/sql.ts';
import type { ApplyMode } from './projector.ts';

/** Values of the partition columns, in their order. */
type Partition = readonly unknown[];

/**
 * Tells a projector whether an id is new to its table, mostly without a seek: an id above the partition's highest
 * (read once, then raised as ids are added) cannot be there; one at or below it is looked for among the ids added
 * since (whose rows may still be kept back, unwritten), then among those `lookUp` found or not found for a batch
 * about to be applied (a hundred ids a statement), then in the table. So ids in order cost nothing, a batch in
 * any other order a statement per hundred, and rows below the highest can be kept back and written many a
 * statement as well. The caller calls `forget` before its transaction ends or is rolled back. A build (`mode`)
 * keeps each partition's highest across its transactions: nothing else writes the tables it builds, and a
 * transaction of it rolled back stops it.
 */
export function newIds(session: SqlSession, table: string, partition: readonly string[] = [], mode: ApplyMode = 'live') {
  const where = (columns: readonly string[]) => columns.map((column) => `${column} = ?`).join(' AND ');
  const highestOf = `SELECT max(id) FROM ${table}${partition.length > 0 ? ` WHERE ${where(partition)}` : ''}`;
  const exists = `SELECT 1 FROM ${table} WHERE ${where([...partition, 'id'])}`;
  const existing = byCount((count) => `SELECT id FROM ${table} WHERE ${partition.map((column) => `${column} = ? AND `).join('')}id IN (${valueList(count)})`);
  /** Each partition's highest id (by its values as JSON), the ids added since the last `forget`, and those looked up (by [...key, id] as JSON). */
  const highest = new Map<string, number>();
  const added = new Set<string>();
  const found = new Map<string, boolean>();

  const highestIn = async (name: string, key: Partition) => {
    let top = highest.get(name);
    if (top === undefined) highest.set(name, (top = (await session.value<number | null>(highestOf, key)) ?? 0));
    return top;
  };

  const above = async (key: Partition, id: number) => id > (await highestIn(JSON.stringify(key), key));

  return {
    /** Whether `id` is above every id of its partition so far: new, and its row goes at the table's end. */
    above,
    async isNew(key: Partition, id: number): Promise<boolean> {
      if (await above(key, id)) return true;
      const name = JSON.stringify([...key, id]);
      if (added.has(name)) return false;
      const there = found.get(name);
      if (there !== undefined) return !there;
      return (await session.value(exists, [...key, id])) === undefined;
    },
    /** Looks up at once which of a batch's ids (each with its partition's values) below their partition's highest are in the table. */
    async lookUp(ids: Iterable<readonly [Partition, number]>) {
      const byPartition = new Map<string, { key: Partition; ids: number[] }>();
      for (const [key, id] of ids) {
        const name = JSON.stringify(key);
        let entry = byPartition.get(name);
        if (entry === undefined) byPartition.set(name, (entry = { key, ids: [] }));
        entry.ids.push(id);
      }
      for (const [name, { key, ids: all }] of byPartition) {
        const top = await highestIn(name, key);
        const below = [...new Set(all.filter((id) => id <= top && !found.has(JSON.stringify([...key, id]))))];
        await inChunks(below, async (chunk) => {
          const there = new Set((await session.rows<[number]>(existing(chunk.length), [...key, ...chunk])).map(([id]) => id));
          for (const id of chunk) found.set(JSON.stringify([...key, id]), there.has(id));
        });
      }
    },
    /** The row of `id` joins the table (now, or when the rows kept back are written). */
    async add(key: Partition, id: number) {
      const name = JSON.stringify(key);
      if (id > (await highestIn(name, key))) highest.set(name, id);
      added.add(JSON.stringify([...key, id]));
    },
    forget() {
      if (mode === 'live') highest.clear();
      added.clear();
      found.clear();
    },
  };
}
