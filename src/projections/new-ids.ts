import { type SqlSession, byCount, inChunks, valueList } from '../storage/sql.ts';

/** Values of the partition columns, in their order. */
type Partition = readonly unknown[];

/**
 * Tells a projector whether an id is new to its table, mostly without a seek: an id above the partition's highest
 * (read once, then raised as ids are added) cannot be there; one at or below it is looked for among the ids added
 * since (whose rows may still be kept back, unwritten), then among those `lookUp` found or not found for a batch
 * about to be applied (a hundred ids a statement), then in the table. So ids in order cost nothing, a batch in
 * any other order a statement per hundred, and rows below the highest can be kept back and written many a
 * statement as well. The caller calls `forget` before its transaction ends or is rolled back. With `keepHighest`
 * (a build's: `write-strategies.ts`) each partition's highest is kept across transactions: nothing else writes
 * the tables a build writes, and a transaction of it rolled back stops it.
 */
export function newIds(session: SqlSession, table: string, partition: readonly string[] = [], keepHighest = false) {
  const where = (columns: readonly string[]) => columns.map((column) => `${column} = ?`).join(' AND ');
  const highestOf = `SELECT max(id) FROM ${table}${partition.length > 0 ? ` WHERE ${where(partition)}` : ''}`;
  const exists = `SELECT 1 FROM ${table} WHERE ${where([...partition, 'id'])}`;
  const existing = byCount((count) => `SELECT id FROM ${table} WHERE ${partition.map((column) => `${column} = ? AND `).join('')}id IN (${valueList(count)})`);
  /** Each partition's highest id, the ids added since the last `forget`, and those looked up, by its values as JSON. */
  const partitions = new Map<string, PartitionIds>();
  const idsOf = (key: Partition) => {
    const name = key.length === 0 ? '' : JSON.stringify(key);
    let ids = partitions.get(name);
    if (ids === undefined) partitions.set(name, (ids = { highest: undefined, added: new Set(), found: new Map() }));
    return ids;
  };
  const highestIn = async (key: Partition, ids: PartitionIds) => (ids.highest ??= (await session.value<number | null>(highestOf, key)) ?? 0);

  // The answers are values whenever what they need is known (after `lookUp`, about every id of the batch), and
  // promises only when they must read: a batch of adds in any order makes no promise a record.
  return {
    /** Whether `id` is above every id of its partition so far: new, and its row goes at the table's end. */
    above(key: Partition, id: number): boolean | Promise<boolean> {
      const ids = idsOf(key);
      return ids.highest !== undefined ? id > ids.highest : highestIn(key, ids).then((highest) => id > highest);
    },
    isNew(key: Partition, id: number): boolean | Promise<boolean> {
      const ids = idsOf(key);
      const known = ids.highest === undefined ? undefined : newBy(ids, id, ids.highest);
      if (known !== undefined) return known;
      return (async () => newBy(ids, id, await highestIn(key, ids)) ?? (await session.value(exists, [...key, id])) === undefined)();
    },
    /** Looks up at once which of a batch's ids (each with its partition's values) below their partition's highest are in the table. */
    async lookUp(batch: Iterable<readonly [Partition, number]>) {
      for (const [ids, { key, ids: all }] of byPartition(batch, idsOf)) {
        const highest = await highestIn(key, ids);
        const below = [...new Set(all.filter((id) => id <= highest && !ids.found.has(id)))];
        await inChunks(below, async (chunk) => {
          const there = new Set((await session.rows<[number]>(existing(chunk.length), [...key, ...chunk])).map(([id]) => id));
          for (const id of chunk) ids.found.set(id, there.has(id));
        });
      }
    },
    /** The row of `id` joins the table (now, or when the rows kept back are written); told after `isNew` said so. */
    add(key: Partition, id: number): void {
      const ids = idsOf(key);
      if (ids.highest === undefined) throw new Error(`newIds.add(${JSON.stringify(key)}, ${id}) before isNew read the partition's highest id`);
      if (id > ids.highest) ids.highest = id;
      ids.added.add(id);
    },
    forget() {
      for (const ids of partitions.values()) {
        if (!keepHighest) ids.highest = undefined;
        ids.added.clear();
        ids.found.clear();
      }
    },
  };
}

/** Whether `id` is new, told by what is known (its place, the ids added, those looked up), or `undefined` when only the table can tell. */
function newBy(ids: PartitionIds, id: number, highest: number): boolean | undefined {
  if (id > highest) return true;
  if (ids.added.has(id)) return false;
  const there = ids.found.get(id);
  return there === undefined ? undefined : !there;
}

/** A batch's ids grouped by what is known of their partition, each group with its partition's values. */
function byPartition(batch: Iterable<readonly [Partition, number]>, idsOf: (key: Partition) => PartitionIds) {
  const groups = new Map<PartitionIds, { key: Partition; ids: number[] }>();
  for (const [key, id] of batch) {
    const ids = idsOf(key);
    let entry = groups.get(ids);
    if (entry === undefined) groups.set(ids, (entry = { key, ids: [] }));
    entry.ids.push(id);
  }
  return groups;
}

/** What is known of one partition's ids within a transaction (its highest across a build's). */
interface PartitionIds {
  highest: number | undefined;
  added: Set<number>;
  found: Map<number, boolean>;
}
