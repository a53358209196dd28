import { ROWS_PER_STATEMENT, type SqlSession, byCount, inChunks, placeholders } from '../storage/sql.ts';

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
