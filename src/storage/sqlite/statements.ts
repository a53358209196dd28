import type { Statement } from 'better-sqlite3';
import type { Sqlite } from './open.ts';

/**
 * Statements whose text depends on how many rows or values they carry (a multi-row insert, an `IN` list),
 * prepared once for each count on first use.
 */
export function statementsByCount(db: Sqlite, sql: (count: number) => string, adapt: (statement: Statement) => Statement = (s) => s): (count: number) => Statement {
  const prepared = new Map<number, Statement>();
  return (count) => {
    let statement = prepared.get(count);
    if (statement === undefined) prepared.set(count, (statement = adapt(db.prepare(sql(count)))));
    return statement;
  };
}
