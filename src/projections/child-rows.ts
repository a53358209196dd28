import { type SqlSession, byCount, placeholders } from '../storage/sql.ts';
import type { TableNames } from './projector.ts';
import type { ChildRows } from './read-model.ts';
import { rowsKeptBack } from './rows-kept-back.ts';

/**
 * Rows of another table derived from a record of a partitioned table (a document's links, by the document's type
 * and id): `parent` names the columns holding the record's key, `parentKey` gives their values for a record.
 */
export interface KeyedChildRows<R> extends Omit<ChildRows<R>, 'parent' | 'key'> {
  parent: readonly string[];
  parentKey(record: R): unknown[];
}

/**
 * Writes a declaration's child rows: a new record's kept back and inserted a statement's worth at a time, a changed
 * record's rewritten only when they differ from those of the record before (most changes of a document leave its
 * links as they are: rewriting them would churn the table and its index at every posting). The caller calls `write`
 * before anything reads the table, and `discard` when the transaction is rolled back.
 */
export function childRowsWriter<R>(session: SqlSession, n: TableNames, child: KeyedChildRows<R>) {
  const table = n(child.table);
  const columns = Object.keys(child.columns);
  const insert = byCount((rows) => `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${placeholders(rows, columns.length)} ON CONFLICT DO NOTHING`);
  const drop = `DELETE FROM ${table} WHERE ${child.parent.map((c) => `${c} = ?`).join(' AND ')}`;
  const kept = rowsKeptBack(session, insert);
  return {
    /** A new record's rows, kept back. */
    add(record: R): void {
      for (const row of child.rows(record)) kept.add(row);
    },
    /** A record changed from `before`: its rows replaced (and those kept back written first) when they differ. */
    async change(before: R, after: R): Promise<void> {
      const rows = child.rows(after);
      if (sameRows(child.rows(before), rows)) return;
      await kept.write();
      await session.run(drop, child.parentKey(after));
      for (const row of rows) kept.add(row);
    },
    write: () => kept.write(),
    discard: () => kept.discard(),
  };
}

/** Whether two lists of rows hold the same values in the same order. */
const sameRows = (a: unknown[][], b: unknown[][]) => a.length === b.length && a.every((row, i) => row.length === b[i].length && row.every((value, j) => value === b[i][j]));
