import fs from 'node:fs';
import Database from 'better-sqlite3';

/** Rows a transaction, as the write scenarios send them: one batch of 100 records, one commit. */
const ROWS_PER_TRANSACTION = 100;

/**
 * The write ceiling: bare better-sqlite3 inserting `rows` (copied from the log) into a table made by the log's own
 * `ddl`, WAL and synchronous=FULL like tradebook's, in transactions of 100. Returns rows/s.
 */
export function bareInsertRowsPerSecond(ddl: string[], rows: Record<string, unknown>[], file: string): number {
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    for (const statement of ddl) db.exec(statement);
    const columns = Object.keys(rows[0]);
    const insert = db.prepare(`INSERT INTO events (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
    const insertBatch = db.transaction((batch: Record<string, unknown>[]) => {
      for (const row of batch) insert.run(row);
    });
    const started = performance.now();
    for (let i = 0; i < rows.length; i += ROWS_PER_TRANSACTION) insertBatch(rows.slice(i, i + ROWS_PER_TRANSACTION));
    return rows.length / ((performance.now() - started) / 1000);
  } finally {
    db.close();
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  }
}
