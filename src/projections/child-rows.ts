import { type SqlSession, byCount, inChunks, placeholders } from '../storage/sql.ts';
import type { TableNames } from './projector.ts';
import type { ChildRows } from './read-model.ts';
import type { WriteStrategy } from './write-strategies.ts';

/**
 * Writes a record's child rows (`ChildRows`) as the row writer's records change: a new record's kept back and
 * inserted a statement's worth at a time, a changed record's replaced only when they differ from those of the
 * record before (most edits leave a contractor's phones, a product's name words and a document's links as they
 * are: rewriting them would churn the table and its index at every edit), the replaced records' rows dropped a
 * statement's worth of parents at a time. Where the strategy stages them (`WriteStrategy.childRows`) and the
 * declaration gives their key, they are appended to a staging table beside theirs and moved into it in key order
 * by `moveStaged`. The caller calls `write` before anything reads the table, and `discard` when the transaction is
 * rolled back.
 */
export function childRowsWriter<R>(session: SqlSession, n: TableNames, child: ChildRows<R>, strategy: Pick<WriteStrategy, 'childRows'>) {
  const key = strategy.childRows === 'staged-and-sorted' ? child.key : undefined;
  const staging = key !== undefined;
  const sql = childStatements(session, n, child, key);
  /** New records' rows not written yet. */
  let added: unknown[][] = [];
  /** Changed records' rows, replacing those written, by their parent's key as JSON. */
  const replaced = new Map<string, { parent: unknown[]; rows: unknown[][] }>();
  let staged = false;
  const insert = async (rows: unknown[][]) => {
    if (staging && !staged && rows.length > 0) for (const statement of sql.create) await session.run(statement);
    staged ||= staging && rows.length > 0;
    await inChunks(rows, (chunk) => session.run(sql.insert(chunk.length), chunk.flat()));
  };
  return {
    /** A new record's rows, kept back. */
    add(record: R): void {
      for (const row of child.rows(record)) added.push(row);
    },
    /** A record changed from `before`: its rows replaced at the next `write` when they differ. */
    change(before: R, after: R): void {
      const rows = child.rows(after);
      if (sameRows(child.rows(before), rows)) return;
      const parent = child.parentKey(after);
      replaced.set(JSON.stringify(parent), { parent, rows });
    },
    /** The rows kept back: the new records' inserted, then the changed records' dropped and inserted anew. */
    async write(): Promise<void> {
      const rows = added;
      added = [];
      await insert(rows);
      if (replaced.size === 0) return;
      const replacing = [...replaced.values()];
      replaced.clear();
      await inChunks(replacing, (chunk) => session.run(sql.drop(chunk.length), chunk.flatMap((r) => r.parent)));
      await insert(replacing.flatMap((r) => r.rows));
    },
    /** The staged rows moved into their table in key order, and the staging table dropped. */
    async moveStaged(): Promise<void> {
      if (!staged) return;
      for (const statement of sql.move) await session.run(statement);
      staged = false;
    },
    discard(): void {
      added = [];
      replaced.clear();
      staged = false;
    },
  };
}

/** The writer of a declaration's child rows. */
export type ChildRowsWriter<R> = ReturnType<typeof childRowsWriter<R>>;

/** The statements writing a declaration's child rows into its table, or (staged) into a staging table beside it, moved in `stagedKey`'s order. */
function childStatements<R>({ dialect }: SqlSession, n: TableNames, child: ChildRows<R>, stagedKey: readonly string[] | undefined) {
  const table = n(child.table);
  const into = stagedKey === undefined ? table : n(`${child.table}_staged`);
  const columns = Object.keys(child.columns);
  const parent = child.parent.join(', ');
  const parentTypes = child.parent.map((c) => child.columns[c]);
  return {
    insert: byCount((rows) => `INSERT INTO ${into} (${columns.join(', ')}) VALUES ${placeholders(rows, columns.length)} ON CONFLICT DO NOTHING`),
    drop: byCount((parents) => `DELETE FROM ${into} WHERE (${parent}) IN (VALUES ${dialect.typedRows(parents, parentTypes)})`),
    ...(stagedKey === undefined
      ? { create: [], move: [] }
      : {
          create: [
            `CREATE TABLE IF NOT EXISTS ${into} (${columns.map((c) => `${c} ${dialect.types[child.columns[c]]} NOT NULL`).join(', ')})`,
            // A changed record's rows are dropped by its parent's key.
            `CREATE INDEX IF NOT EXISTS ${n(`${child.table}_staged_parent`)} ON ${into} (${parent})`,
          ],
          // WHERE true: SQLite reads an ON CONFLICT straight after a SELECT's last clause as part of it.
          move: [
            `INSERT INTO ${table} (${columns.join(', ')}) SELECT ${columns.join(', ')} FROM ${into} WHERE true ORDER BY ${stagedKey.join(', ')} ON CONFLICT DO NOTHING`,
            `DROP TABLE ${dialect.ownTable(into)}`,
          ],
        }),
  };
}

/** Whether two lists of rows hold the same values in the same order. */
const sameRows = (a: unknown[][], b: unknown[][]) => a.length === b.length && a.every((row, i) => row.length === b[i].length && row.every((value, j) => value === b[i][j]));
