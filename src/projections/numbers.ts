import type { SqlSession } from '../storage/sql.ts';

/**
 * The numbers a table's rows take in the order they are first added, in its `column`: the highest so far plus one,
 * as SQLite numbers rows itself, so every engine gives a row the same number (no sequence: a rolled-back insert
 * would burn one). The highest is read once a transaction (`forget` before it ends or is rolled back) or, with
 * `keepHighest` (a build's: `write-strategies.ts`), once a build: nothing else adds rows to the tables it writes.
 */
export function numbers(session: SqlSession, table: string, column: string, keepHighest = false) {
  const highest = `SELECT coalesce(max(${column}), 0) FROM ${table}`;
  let next: number | undefined;
  return {
    /** The next row's number: a value once the highest is read, so a batch of adds makes one promise. */
    next(): number | Promise<number> {
      if (next !== undefined) return next++;
      return session.value<number>(highest).then((found) => {
        next = Number(found) + 1;
        return next++;
      });
    },
    forget() {
      if (!keepHighest) next = undefined;
    },
  };
}
