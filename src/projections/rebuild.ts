import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Sqlite, openSqlite } from '../db/open.ts';
import { type StoredEvent, lastSeq, replayEvents } from '../events/store.ts';
import type { Projector } from './projector.ts';
import { Projections, createProjectionTables, projectors, readCheckpoints } from './registry.ts';

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
 * Replays the log of `source` into fresh projection tables in `target`, in transactions of `chunk`
 * events, reading the log a chunk at a time so memory stays flat. Returns the last seq applied.
 */
export function buildProjections(target: Sqlite, source: Sqlite, options: BuildOptions = {}): number {
  const until = options.until ?? lastSeq(source);
  // Small transactions: a rebuild defers its heavy work to the final flush, so a transaction costs little, and a
  // chunk's events are alive at once (10,000 a transaction peaked ~50 MB higher, and ran slower; docs/performance.md).
  const chunk = options.chunk ?? 1000;
  target.exec('CREATE TABLE IF NOT EXISTS projection_checkpoints (name TEXT PRIMARY KEY, version INTEGER NOT NULL, last_seq INTEGER NOT NULL)');
  target.transaction(() => createProjectionTables(target, projectors, 0))();
  const projections = new Projections(target);
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

/** Where a rebuild of `db` is built (`purpose` tells its users apart): beside the database, or in tmp for one in memory. */
export function scratchPath(db: Sqlite, purpose = 'rebuild'): string {
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

/**
 * Drops every read table and rebuilds it from the log. The new tables are built in a scratch database and
 * swapped in by one transaction, so an interrupted rebuild leaves the old tables in place and a reader never
 * sees a half-built state. Events appended meanwhile are applied inside the swap.
 */
export function rebuild(db: Sqlite, options: Omit<BuildOptions, 'until'> = {}): { events: number } {
  const scratch = openScratch(scratchPath(db));
  try {
    const built = buildProjections(scratch, db, options);
    scratch.close();
    swapIn(db, scratch.name, projectors, built);
    return { events: built };
  } finally {
    removeScratch(scratch);
  }
}

function swapIn(db: Sqlite, scratchFile: string, list: Projector[], builtSeq: number): void {
  db.prepare('ATTACH DATABASE ? AS rebuilt').run(scratchFile);
  try {
    db.transaction(() => {
      createProjectionTables(db, list, builtSeq);
      for (const table of list.flatMap((p) => p.tables)) db.exec(`INSERT INTO main."${table}" SELECT * FROM rebuilt."${table}"`);
      catchUp(db, builtSeq);
    }).immediate();
  } finally {
    db.exec('DETACH DATABASE rebuilt');
  }
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
  projections.saveCheckpoint();
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
