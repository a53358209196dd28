import { type SqlSession, inChunks } from '../storage/sql.ts';

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
