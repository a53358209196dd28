import type { Sqlite } from './open.ts';

/**
 * The SQLite side of maintaining the read tables: what the schema holds, the settings of a bulk build, a scratch
 * database attached for a comparison, the guard of a read-only copy. Used by rebuild, verify and point in time.
 */
/** Pages (4 KB) written between a build's checkpoints. */
const BUILD_CHECKPOINT = 20_000;

/** The tables whose names start with `prefix` (a rebuild's, left by one that was interrupted). */
export function tablesNamedWith(db: Sqlite, prefix: string): string[] {
  return db.prepare(`SELECT name FROM main.sqlite_master WHERE type = 'table' AND substr(name, 1, ${prefix.length}) = ?`).pluck().all(prefix) as string[];
}

/** The names of a table's explicit indexes (SQLite's own, for a primary key or UNIQUE, are left out). */
export function indexesOf(db: Sqlite): (table: string) => string[] {
  const statement = db.prepare(`SELECT name FROM main.sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`).pluck();
  return (table) => statement.all(table) as string[];
}

/** Whether the main database has a table of that name. */
export function tableExists(db: Sqlite, table: string): boolean {
  return db.prepare("SELECT count(*) FROM main.sqlite_master WHERE type = 'table' AND name = ?").pluck().get(table) !== 0;
}

/**
 * Runs a bulk build without an fsync per commit (synchronous=NORMAL: until the swap, nothing refers to the tables
 * it writes; checkpoints still fsync, so what other connections committed stays durable, which OFF would not
 * promise) and checkpoints every BUILD_CHECKPOINT pages, a size measured between too often and never
 * (docs/performance.md). The swap's commit is fsynced.
 */
export async function withBuildSettings<T>(db: Sqlite, build: () => Promise<T>): Promise<T> {
  const synchronous = db.pragma('synchronous', { simple: true });
  const autocheckpoint = db.pragma('wal_autocheckpoint', { simple: true });
  db.pragma('synchronous = NORMAL');
  db.pragma(`wal_autocheckpoint = ${BUILD_CHECKPOINT}`);
  try {
    return await withTemporaryFiles(db, build);
  } finally {
    db.pragma(`synchronous = ${synchronous}`);
    db.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
  }
}

/**
 * Runs `work` with the connection's temporary B-trees in files (a serving connection keeps them in memory,
 * `openSqlite`): the sorts of a build's indexes and the differences of a comparison are as large as whole tables.
 */
export async function withTemporaryFiles<T>(db: Sqlite, work: () => Promise<T>): Promise<T> {
  const tempStore = db.pragma('temp_store', { simple: true });
  db.pragma('temp_store = FILE');
  try {
    return await work();
  } finally {
    db.pragma(`temp_store = ${tempStore}`);
  }
}

/** Runs `work` with the database `file` attached to `db` as schema `alias`, detached afterwards whatever happens. */
export async function withAttached<T>(db: Sqlite, file: string, alias: string, work: () => Promise<T>): Promise<T> {
  db.prepare(`ATTACH DATABASE ? AS ${alias}`).run(file);
  try {
    return await work();
  } finally {
    db.exec(`DETACH DATABASE ${alias}`);
  }
}

/**
 * Runs `work` in an IMMEDIATE transaction (the write lock taken at BEGIN), committed when it settles, rolled back
 * when it fails. `work` may await only this connection's statements: they settle within the turn, so nothing
 * else runs on the connection meanwhile.
 */
export async function inWriteTransaction<T>(db: Sqlite, work: () => Promise<T>): Promise<T> {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = await work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

/** The seq a point-in-time copy ends at, or undefined for an ordinary (writable) database. */
export function pointInTimeOf(db: Sqlite): number | undefined {
  return (db.prepare('SELECT until_seq FROM point_in_time LIMIT 1').pluck().get() as number | undefined) ?? undefined;
}

/** From now on every new event is refused with `message` (a point-in-time copy only ever holds its prefix). */
export function refuseNewEvents(db: Sqlite, message: string): void {
  db.exec(`CREATE TRIGGER events_point_in_time BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, '${message.replaceAll("'", "''")}'); END`);
}

/** Every row of `table`, ordered by every column: two databases with equal rows give equal lists. */
function everyRow(db: Sqlite, table: string): unknown[] {
  const columns = db.prepare(`SELECT count(*) FROM pragma_table_info(?)`).pluck().get(table) as number;
  const everyColumn = Array.from({ length: columns }, (_, i) => i + 1).join(', ');
  return db.prepare(`SELECT * FROM "${table}" ORDER BY ${everyColumn}`).all();
}

/** Every row of each of `tables` (as `everyRow`), by table: two databases with equal dumps serve equal bytes. */
export function everyRowOf(db: Sqlite, tables: readonly string[]): Record<string, unknown[]> {
  return Object.fromEntries(tables.map((table) => [table, everyRow(db, table)]));
}
