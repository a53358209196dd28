import type { SqlSession } from '../storage/sql.ts';

/** Values of the partition columns, in their order. */
type Partition = readonly unknown[];

/**
 * Tells a projector whether an id is new to its table, mostly without a seek: an id above the partition's highest
 * (read once, then raised as ids are added) cannot be there; one at or below it is looked for among the ids added
 * since (whose rows may still be kept back, unwritten), then in the table. So ids in order cost nothing and ids in
 * any other order one seek each, and rows below the highest can be kept back and written many a statement as
 * well. The caller calls `forget` before its transaction ends or is rolled back.
 */
export function newIds(session: SqlSession, table: string, partition: readonly string[] = []) {
  const where = (columns: readonly string[]) => columns.map((column) => `${column} = ?`).join(' AND ');
  const highestOf = `SELECT max(id) FROM ${table}${partition.length > 0 ? ` WHERE ${where(partition)}` : ''}`;
  const exists = `SELECT 1 FROM ${table} WHERE ${where([...partition, 'id'])}`;
  /** Each partition's highest id (by its values as JSON), and the ids added since the last `forget`. */
  const highest = new Map<string, number>();
  const added = new Set<string>();

  const highestIn = async (name: string, key: Partition) => {
    let top = highest.get(name);
    if (top === undefined) highest.set(name, (top = (await session.value<number | null>(highestOf, key)) ?? 0));
    return top;
  };

  return {
    async isNew(key: Partition, id: number): Promise<boolean> {
      if (id > (await highestIn(JSON.stringify(key), key))) return true;
      if (added.has(JSON.stringify([...key, id]))) return false;
      return (await session.value(exists, [...key, id])) === undefined;
    },
    /** The row of `id` joins the table (now, or when the rows kept back are written). */
    async add(key: Partition, id: number) {
      const name = JSON.stringify(key);
      if (id > (await highestIn(name, key))) highest.set(name, id);
      added.add(JSON.stringify([...key, id]));
    },
    forget() {
      highest.clear();
      added.clear();
    },
  };
}
