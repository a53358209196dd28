import { ROWS_PER_STATEMENT, type SqlSession, byCount, inChunks, placeholders } from '../storage/sql.ts';

/**
 * New rows of a table kept back and inserted a hundred a statement (`insert` builds the statement for a count of
 * rows). The projector writing them calls `write` before anything reads the table or moves its rows, and at
 * `persist`; `discard` forgets them when the transaction is rolled back. With `order`, they are inserted in that
 * order (a table keyed by its first column: rows in key order land on neighbouring pages, whatever order they came in).
 */
export function rowsKeptBack(session: SqlSession, insert: (rows: number) => string, order?: (a: unknown[], b: unknown[]) => number) {
  const rows: unknown[][] = [];
  return {
    add: (row: unknown[]) => void rows.push(row),
    /** How many rows are kept back. */
    size: () => rows.length,
    write: async () => {
      const kept = rows.splice(0);
      if (kept.length > 0) await inChunks(order ? kept.sort(order) : kept, (chunk) => session.run(insert(chunk.length), chunk.flat()));
    },
    discard: () => void (rows.length = 0),
  };
}

/**
 * Rows of a table with a key column, kept back by key (a row set again replaces the one kept) and written a
 * hundred a statement, each inserted or replacing the table's row with its key: the served rows a flush renders.
 * `columns` are the table's, the key first, in the order of a row's values, and `replaced` those a replacement
 * rewrites (the others follow from the key); the caller calls `write` before anything reads the rows, and
 * `discard` when the transaction is rolled back.
 */
export function rowsKeptByKey(session: SqlSession, table: string, columns: readonly string[], replaced: readonly string[]) {
  const key = columns[0];
  const save = byCount(
    (rows) =>
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${placeholders(rows, columns.length)}
       ON CONFLICT (${key}) DO UPDATE SET ${replaced.map((c) => `${c} = excluded.${c}`).join(', ')}`,
  );
  const rows = new Map<unknown, unknown[]>();
  return {
    /** Keeps the row (its key is its first value); true when a statement's worth is kept. */
    set(row: unknown[]): boolean {
      rows.set(row[0], row);
      return rows.size >= ROWS_PER_STATEMENT;
    },
    has: (key: unknown) => rows.has(key),
    async write(): Promise<void> {
      const kept = [...rows.values()];
      rows.clear();
      await inChunks(kept, (chunk) => session.run(save(chunk.length), chunk.flat()));
    },
    discard: () => rows.clear(),
  };
}
