import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inWriteTransaction } from './sqlite/maintenance.ts';
import { openSqlite } from './sqlite/open.ts';
import { sqliteSession } from './sqlite/session.ts';
import type { SqlSession } from './sql.ts';

/**
 * A database of a build's own, thrown away after it: an embedded (SQLite) file in tmp, whichever engine the build
 * is for, since it applies an event without a round trip. Opened by a build that loads its rows elsewhere.
 */
export interface ScratchDatabase {
  readonly session: SqlSession;
  /** Runs `work` as one write transaction. */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /** Every row of `table`, its columns in their order, read as they are iterated. */
  rowsOf(table: string): { rows: Iterable<unknown[]>; columns: number };
  /** Closes the database and removes its files. */
  remove(): void;
}

export function openScratchDatabase(): ScratchDatabase {
  const file = path.join(os.tmpdir(), `tradebook-build-${process.pid}-${Date.now()}.db`);
  // A scratch database is thrown away if anything goes wrong: no journal, no fsync.
  const scratch = openSqlite(file, { scratch: true });
  return {
    session: sqliteSession(scratch),
    transaction: (work) => inWriteTransaction(scratch, work),
    rowsOf(table) {
      const rows = scratch.prepare(`SELECT * FROM "${table}"`).raw();
      return { rows: rows.iterate() as Iterable<unknown[]>, columns: rows.columns().length };
    },
    remove() {
      scratch.close();
      for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(file + suffix, { force: true });
    },
  };
}
