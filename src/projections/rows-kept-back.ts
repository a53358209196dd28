import { type SqlSession, inChunks } from '../storage/sql.ts';

/**
 * New rows of a table kept back and inserted a hundred a statement (`insert` builds the statement for a count of
 * rows). The projector writing them calls `write` before anything reads the table or moves its rows, and at
 * `persist`; `discard` forgets them when the transaction is rolled back.
 */
export function rowsKeptBack(session: SqlSession, insert: (rows: number) => string) {
  const rows: unknown[][] = [];
  return {
    add: (row: unknown[]) => void rows.push(row),
    write: async () => {
      if (rows.length > 0) await inChunks(rows.splice(0), (chunk) => session.run(insert(chunk.length), chunk.flat()));
    },
    discard: () => void (rows.length = 0),
  };
}
