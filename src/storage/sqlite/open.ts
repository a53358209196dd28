import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export type Sqlite = Database.Database;

export interface OpenOptions {
  readonly?: boolean;
  /** A throw-away database (a rebuild's): no journal, no fsync. */
  scratch?: boolean;
  /** Called with the text of every statement the connection executes (tests count a request's statements). */
  trace?: (sql: string) => void;
}

/**
 * Opens the SQLite file with the pragmas every connection needs: WAL so readers never block the writer,
 * synchronous=FULL so a committed write is on disk before it is acknowledged, a busy timeout so a second
 * process (import, seed, another server) waits its turn instead of failing.
 */
export function openSqlite(file: string, options: OpenOptions = {}): Sqlite {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const { trace } = options;
  const db = new Database(file, { readonly: options.readonly ?? false, verbose: trace && ((sql) => trace(String(sql))) });
  db.pragma('busy_timeout = 10000');
  if (options.scratch) {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
  } else {
    if (!options.readonly) db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
  }
  db.pragma('foreign_keys = ON');
  return db;
}
