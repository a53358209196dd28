import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { NotADatabase, StorageFault } from '../errors.ts';
import { storageFaultOf } from '../storage-fault.ts';

export type Sqlite = Database.Database;
export type Statement = Database.Statement;

export interface OpenOptions {
  readonly?: boolean;
  /** A throw-away database (a rebuild's): no journal, no fsync. */
  scratch?: boolean;
  /** Called with the text of every statement the connection executes (tests count a request's statements). */
  trace?: (sql: string) => void;
}

/** The page cache of a connection that writes, in KB. */
const WRITER_CACHE_KB = 32 * 1024;

/**
 * Opens the SQLite file with the pragmas every connection needs: WAL so readers never block the writer,
 * synchronous=FULL so a committed write is on disk before it is acknowledged, a busy timeout so a second
 * process (import, seed, another server) waits its turn instead of failing.
 */
export function openSqlite(file: string, options: OpenOptions = {}): Sqlite {
  if (file !== ':memory:' && !options.readonly) ensureWritable(file);
  const { trace } = options;
  const db = new Database(file, { readonly: options.readonly ?? false, verbose: trace && ((sql) => trace(String(sql))) });
  try {
    db.pragma('busy_timeout = 10000');
    if (options.scratch) {
      db.pragma('journal_mode = OFF');
      db.pragma('synchronous = OFF');
    } else {
      if (!options.readonly) db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
    }
    db.pragma('foreign_keys = ON');
    // SQLite's default page cache is 2 MB: a rebuild of a log in random id order writes rows all over tables of
    // tens of MB, and its misses cost it half again its time (docs/performance.md). Pages are allocated as they
    // are used, so an idle connection costs nothing more; 64 MB measured no better and 30 MB more peak RSS.
    if (!options.readonly) db.pragma(`cache_size = -${WRITER_CACHE_KB}`);
    // A statement's temporary B-tree (a window, an UPDATE … FROM, a sort) otherwise creates and deletes a file each
    // time: 0.5–1.8 ms a statement, measured, where in memory it costs tens of µs. A request's temporaries are small
    // (pages, batches); a bulk build or a comparison of whole tables spills to files again (`withTemporaryFiles`).
    if (!options.scratch) db.pragma('temp_store = MEMORY');
  } catch (error) {
    db.close();
    // SQLite opens any file without a word: the first statement that reads its header finds out.
    if ((error as { code?: unknown }).code === 'SQLITE_NOTADB') throw new NotADatabase(file, (error as Error).message);
    throw error;
  }
  return db;
}

/**
 * Creates `folder` and its missing parents one at a time. Node's recursive mkdir retries for ever where a folder
 * cannot be made yet the kernel answers ENOENT (under /proc); a plain mkdir fails at once.
 */
function makeFolder(folder: string): void {
  if (fs.existsSync(folder)) return;
  const parent = path.dirname(folder);
  if (parent !== folder) makeFolder(parent);
  try {
    fs.mkdirSync(folder);
  } catch (error) {
    // Made meanwhile by another process starting on the same path.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * Refuses a file this process cannot write (a read-only file, folder or file system) or whose folder cannot be
 * created. SQLite would open such a file read-only without a word, and only its first write would fail.
 */
function ensureWritable(file: string): void {
  const folder = path.dirname(path.resolve(file));
  try {
    makeFolder(folder);
  } catch (error) {
    throw storageFaultOf(error) ?? new StorageFault('io', `cannot create the folder ${folder}: ${(error as Error).message}`, { cause: error });
  }
  // The folder too: SQLite creates the write-ahead log and its index beside the file.
  for (const target of fs.existsSync(file) ? [file, folder] : [folder]) {
    try {
      fs.accessSync(target, fs.constants.W_OK);
    } catch (error) {
      throw new StorageFault('read-only', `${(error as NodeJS.ErrnoException).code ?? 'error'}: ${target} is not writable`, { cause: error });
    }
  }
}
