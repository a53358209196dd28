import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Sqlite, openSqlite } from '../db/open.ts';
import { type StoredEvent, lastSeq, replayEvents } from '../events/store.ts';
import { type TableNames, servedNames } from './projector.ts';
import { Projections, createProjectionTables, projectors, readCheckpoints, setCheckpoints } from './registry.ts';

export interface RebuildProgress {
  done: number;
  total: number;
}

export interface BuildOptions {
  /** Build from events up to and including this seq (default: the whole log). */
  until?: number;
  onProgress?: (progress: RebuildProgress) => void;
  /** Events a transaction. */
  chunk?: number;
}

const READ_CHUNK = 1000;

/**
 * Replays the log of `source` into fresh projection tables in `target`, named through `names`, in transactions of
 * `chunk` events, reading the log a chunk at a time so memory stays flat. Returns the last seq applied.
 */
export function buildProjections(target: Sqlite, source: Sqlite, options: BuildOptions = {}, names: TableNames = servedNames): number {
  const until = options.until ?? lastSeq(source);
  // Small transactions: a rebuild defers its heavy work to the final flush, so a transaction costs little, and a
  // chunk's events are alive at once (10,000 a transaction peaked ~50 MB higher, and ran slower; docs/performance.md).
  const chunk = options.chunk ?? 1000;
  target.transaction(() => createProjectionTables(target, projectors, 0, names))();
  const projections = new Projections(target, projectors, names);
  let batch: StoredEvent[] = [];
  let done = 0;
  const commit = () => {
    target.transaction(() => projections.replay(batch))();
    done += batch.length;
    batch = [];
    options.onProgress?.({ done, total: until });
  };
  // Read in pieces: each piece is an array of rows alive at once, and larger pieces raised the peak RSS
  // measurably (see bench/README.md).
  for (const event of replayEvents(source, 0, READ_CHUNK)) {
    if (event.seq > until) break;
    batch.push(event);
    if (batch.length >= chunk) commit();
  }
  if (batch.length > 0 || done === 0) commit();
  // The deferred work (each product's views) once for the whole log, not once per transaction.
  target.transaction(() => projections.flush())();
  return Math.min(until, lastSeq(source));
}

/** Where a verification of `db` builds its tables: beside the database, or in tmp for one in memory. */
export function scratchPath(db: Sqlite, purpose: string): string {
  const base = db.name === ':memory:' || db.name === '' ? path.join(os.tmpdir(), `tradebook-${process.pid}-${Date.now()}.db`) : db.name;
  return `${base}.${purpose}`;
}

export function openScratch(file: string): Sqlite {
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(file + suffix, { force: true });
  // A scratch database is thrown away if anything goes wrong, so it needs no journal and no fsync.
  return openSqlite(file, { scratch: true });
}

export function removeScratch(scratch: Sqlite): void {
  scratch.close();
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(scratch.name + suffix, { force: true });
}

/** A rebuild writes its tables and indexes beside the served ones, under this prefix, until the swap renames them. */
const BUILD_PREFIX = 'rebuilding_';
const buildNames: TableNames = (name) => BUILD_PREFIX + name;

/**
 * Drops every read table and rebuilds it from the log. The new tables are built in the same database under
 * other names and swapped in by one transaction, so an interrupted rebuild leaves the old tables in place (its
 * leftovers are dropped by the next rebuild) and a reader never sees a half-built state. Events appended
 * meanwhile are applied inside the swap.
 */
export function rebuild(db: Sqlite, options: Omit<BuildOptions, 'until'> = {}): { events: number } {
  dropBuildTables(db);
  try {
    const built = withoutSync(db, () => buildProjections(db, db, options, buildNames));
    swapIn(db, built);
    return { events: built };
  } catch (error) {
    dropBuildTables(db);
    throw error;
  }
}

function dropBuildTables(db: Sqlite): void {
  const tables = db.prepare(`SELECT name FROM main.sqlite_master WHERE type = 'table' AND substr(name, 1, ${BUILD_PREFIX.length}) = ?`).pluck().all(BUILD_PREFIX) as string[];
  if (tables.length > 0) db.transaction(() => tables.forEach((table) => db.exec(`DROP TABLE main."${table}"`)))();
}

/**
 * Runs the build without an fsync per transaction: until the swap, nothing refers to the tables it writes. The
 * connection never checkpoints meanwhile (a checkpoint without fsync could lose pages other connections
 * committed durably); the swap's commit fsyncs the log file, and with it every page the build wrote.
 */
function withoutSync<T>(db: Sqlite, build: () => T): T {
  const synchronous = db.pragma('synchronous', { simple: true });
  const autocheckpoint = db.pragma('wal_autocheckpoint', { simple: true });
  db.pragma('synchronous = OFF');
  db.pragma('wal_autocheckpoint = 0');
  try {
    return build();
  } finally {
    db.pragma(`synchronous = ${synchronous}`);
    db.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
  }
}

/**
 * Replaces the served tables by the built ones in one transaction: drop, rename, and the indexes created again
 * under their served names (an index keeps its name when its table is renamed, and queries name some of them).
 */
function swapIn(db: Sqlite, builtSeq: number): void {
  const indexesOf = db.prepare(`SELECT name FROM main.sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`).pluck();
  db.transaction(() => {
    for (const p of projectors) {
      for (const table of p.tables) {
        db.exec(`DROP TABLE IF EXISTS main."${table}"`);
        db.exec(`ALTER TABLE main."${buildNames(table)}" RENAME TO "${table}"`);
        for (const index of indexesOf.all(table) as string[]) db.exec(`DROP INDEX main."${index}"`);
      }
      for (const statement of p.schema(servedNames)) if (statement.startsWith('CREATE INDEX')) db.exec(statement);
    }
    db.exec(`DROP TABLE main."${buildNames('projection_checkpoints')}"`);
    setCheckpoints(db, projectors, builtSeq);
    catchUp(db, builtSeq);
  }).immediate();
}

/** Applies the events after `fromSeq` to the live tables (inside the caller's transaction). */
function catchUp(db: Sqlite, fromSeq: number): void {
  const projections = new Projections(db);
  let batch: StoredEvent[] = [];
  for (const event of replayEvents(db, fromSeq)) {
    batch.push(event);
    if (batch.length >= 10_000) {
      projections.apply(batch);
      batch = [];
    }
  }
  projections.apply(batch);
}

/**
 * Makes the read tables current before anything is served: creates missing ones, rebuilds every projection
 * when a projector's version differs from the one its tables were built by, and applies any events the
 * checkpoints have not seen. Returns the names of the projections that were rebuilt.
 */
export function ensureProjections(db: Sqlite): string[] {
  const checkpoints = readCheckpoints(db);
  const changed = projectors.filter((p) => checkpoints.has(p.name) && checkpoints.get(p.name)!.version !== p.version);
  const missing = projectors.filter((p) => !checkpoints.has(p.name));
  if (changed.length > 0 || missing.length > 0) {
    rebuild(db);
    // A new database gets its tables without a word; a projection rebuilt from history is reported.
    return [...changed, ...(lastSeq(db) > 0 ? missing : [])].map((p) => p.name);
  }
  const behind = Math.min(...projectors.map((p) => checkpoints.get(p.name)!.last_seq));
  if (behind < lastSeq(db)) db.transaction(() => catchUp(db, behind)).immediate();
  return [];
}
