import { inWriteTransaction, indexesOf, tablesNamedWith, withBuildSettings } from '../storage/sqlite/maintenance.ts';
import type { Sqlite } from '../storage/sqlite/open.ts';
import { sqliteSession } from '../storage/sqlite/session.ts';
import type { StoredEvent } from '../events/store.ts';
import { lastSeq, replayEvents } from '../storage/sqlite/event-log.ts';
import { type TableNames, servedNames } from './projector.ts';
import { Projections, createReadIndexes, projectors, readCheckpoints, setCheckpoints } from './registry.ts';
import { buildInto } from './build.ts';

export interface RebuildProgress {
  done: number;
  total: number;
}

export interface BuildOptions {
  /** Build from events up to and including this seq (default: the whole log). */
  until?: number;
  /** Told after each transaction of the replay; the build goes on once it settles. */
  onProgress?: (progress: RebuildProgress) => Promise<void> | void;
  /** Events a transaction. */
  chunk?: number;
}

// Rows read a query at a time: each piece is alive at once, and larger pieces raised the peak RSS measurably.
const READ_CHUNK = 200;

/** Where a build writes: the tables' names, and whether it creates the read indexes (after the load) itself. */
export interface BuildTarget {
  names: TableNames;
  readIndexes: boolean;
}

/** The events of `log` up to and including `until`. */
function* upTo(log: Iterable<StoredEvent>, until: number): Generator<StoredEvent> {
  for (const event of log) {
    if (event.seq > until) return;
    yield event;
  }
}

/**
 * Replays the log of `source` into fresh projection tables in `target`, in transactions of `chunk` events, each
 * event applied as soon as it is read so memory stays flat. Returns the last seq applied.
 */
export async function buildProjections(
  target: Sqlite,
  source: Sqlite,
  options: BuildOptions = {},
  into: BuildTarget = { names: servedNames, readIndexes: true },
): Promise<number> {
  const until = options.until ?? lastSeq(source);
  await buildInto(sqliteSession(target), into.names, upTo(replayEvents(source, 0, READ_CHUNK), until)[Symbol.iterator](), {
    // Small transactions: a rebuild defers its heavy work to the final flush, so a transaction costs little.
    chunk: options.chunk ?? 1000,
    readIndexes: into.readIndexes,
    // Every transaction takes the write lock at BEGIN: a transaction that read first could not wait for a server's
    // writer to finish (SQLite fails such an upgrade at once rather than risk a deadlock). The deferred work is
    // flushed in steps, each its own transaction: a build in the live database shares it with a server's writers.
    transaction: (work) => inWriteTransaction(target, work),
    onProgress: (done) => options.onProgress?.({ done, total: until }),
  });
  return Math.min(until, lastSeq(source));
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
export async function rebuild(db: Sqlite, options: Omit<BuildOptions, 'until'> = {}): Promise<{ events: number }> {
  dropBuildTables(db);
  try {
    const built = await withBuildSettings(db, () => buildProjections(db, db, options, { names: buildNames, readIndexes: false }));
    await swapIn(db, built);
    return { events: built };
  } catch (error) {
    // On a full disk the drop may fail too: the error that stopped the build is the one to report, and the
    // next rebuild drops the leftovers.
    try {
      dropBuildTables(db);
    } catch {}
    throw error;
  }
}

function dropBuildTables(db: Sqlite): void {
  const tables = tablesNamedWith(db, BUILD_PREFIX);
  if (tables.length > 0) db.transaction(() => tables.forEach((table) => db.exec(`DROP TABLE main."${table}"`))).immediate();
}

/**
 * Replaces the served tables by the built ones in one transaction: drop, rename, and the indexes created again
 * under their served names (an index keeps its name when its table is renamed, and queries name some of them).
 */
async function swapIn(db: Sqlite, builtSeq: number): Promise<void> {
  const indexes = indexesOf(db);
  const session = sqliteSession(db);
  await inWriteTransaction(db, async () => {
    for (const p of projectors) {
      for (const table of p.tables) {
        db.exec(`DROP TABLE IF EXISTS main."${table}"`);
        db.exec(`ALTER TABLE main."${buildNames(table)}" RENAME TO "${table}"`);
        for (const index of indexes(table)) db.exec(`DROP INDEX main."${index}"`);
      }
      for (const statement of p.schema(servedNames, session.dialect)) if (statement.startsWith('CREATE INDEX')) db.exec(statement);
    }
    await createReadIndexes(session, projectors);
    db.exec(`DROP TABLE main."${buildNames('projection_checkpoints')}"`);
    await setCheckpoints(session, projectors, builtSeq);
    await catchUp(db, builtSeq);
  });
}

/** Applies the events after `fromSeq` to the live tables (inside the caller's transaction). */
async function catchUp(db: Sqlite, fromSeq: number): Promise<void> {
  const projections = new Projections(sqliteSession(db));
  let batch: StoredEvent[] = [];
  for (const event of replayEvents(db, fromSeq)) {
    batch.push(event);
    if (batch.length >= 10_000) {
      await projections.apply(batch);
      batch = [];
    }
  }
  await projections.apply(batch);
  await projections.saveCheckpoint();
}

/**
 * Makes the read tables current before anything is served: creates missing ones, rebuilds every projection
 * when a projector's version differs from the one its tables were built by, and applies any events the
 * checkpoints have not seen. Returns the names of the projections that were rebuilt.
 */
export async function ensureProjections(db: Sqlite): Promise<string[]> {
  const checkpoints = await readCheckpoints(sqliteSession(db));
  const changed = projectors.filter((p) => checkpoints.has(p.name) && checkpoints.get(p.name)!.version !== p.version);
  const missing = projectors.filter((p) => !checkpoints.has(p.name));
  if (changed.length > 0 || missing.length > 0) {
    await rebuild(db);
    // A new database gets its tables without a word; a projection rebuilt from history is reported.
    return [...changed, ...(lastSeq(db) > 0 ? missing : [])].map((p) => p.name);
  }
  const behind = Math.min(...projectors.map((p) => checkpoints.get(p.name)!.last_seq));
  if (behind < lastSeq(db)) await inWriteTransaction(db, () => catchUp(db, behind));
  return [];
}
