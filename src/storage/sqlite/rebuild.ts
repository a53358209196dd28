import { inWriteTransaction, indexesOf, tablesNamedWith, withBuildSettings } from './maintenance.ts';
import type { Sqlite } from './open.ts';
import { sqliteSession } from './session.ts';
import type { StoredEvent } from '../../events/store.ts';
import { lastSeq, replayEvents } from './event-log.ts';
import { type BuildBeside, type ReadModels, type RebuildProgress, type TableNames, servedNames } from '../read-tables.ts';

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
  readModels: ReadModels,
  options: BuildOptions = {},
  into: BuildTarget = { names: servedNames, readIndexes: true },
): Promise<number> {
  const until = options.until ?? lastSeq(source);
  await readModels.build(sqliteSession(target), into.names, upTo(replayEvents(source, 0, READ_CHUNK), until)[Symbol.iterator](), {
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

/**
 * SQLite's build beside the served tables: in the same file, on the writer's connection, without an fsync a commit
 * until the swap (`withBuildSettings`); the read indexes are created in the swap, once the rows are in.
 */
function buildBeside(db: Sqlite, readModels: ReadModels): BuildBeside {
  const session = sqliteSession(db);
  return {
    async dropTablesNamedWith(prefix) {
      const tables = tablesNamedWith(db, prefix);
      if (tables.length > 0) db.transaction(() => tables.forEach((table) => db.exec(`DROP TABLE main."${table}"`))).immediate();
    },
    logEnd: async () => lastSeq(db),
    async build(names, until, onProgress) {
      await withBuildSettings(db, () => buildProjections(db, db, readModels, { until, onProgress }, { names, readIndexes: false }));
    },
    swap: (work) => inWriteTransaction(db, () => work(session, (seq) => replayEvents(db, seq))),
    // An index keeps its name when its table is renamed, and queries name some of them: each is created again
    // under its served name.
    async renameBuilt(session, names) {
      const indexes = indexesOf(db);
      for (const table of readModels.tables) {
        db.exec(`DROP TABLE IF EXISTS main."${table}"`);
        db.exec(`ALTER TABLE main."${names(table)}" RENAME TO "${table}"`);
        for (const index of indexes(table)) db.exec(`DROP INDEX main."${index}"`);
      }
      for (const statement of readModels.servedIndexes(session.dialect)) db.exec(statement);
      await readModels.createReadIndexes(session, servedNames);
    },
  };
}

/** Every read table rebuilt from the log beside the served ones and swapped in (`read-models/rebuild.ts`), on `db`. */
export function rebuild(db: Sqlite, readModels: ReadModels, options: Omit<BuildOptions, 'until' | 'chunk'> = {}): Promise<{ events: number }> {
  return readModels.rebuild(buildBeside(db, readModels), options);
}

/**
 * Makes the read tables current before anything is served (`bringReadTablesUp`): every table rebuilt beside the
 * served ones and swapped in when any is missing or built by another version, else the events after the checkpoints
 * applied in a write transaction. Returns the names of the projections rebuilt from history.
 */
export async function ensureProjections(db: Sqlite, readModels: ReadModels): Promise<string[]> {
  const { missing, changed, end } = await readModels.bringUp({
    session: sqliteSession(db),
    eventsAfter: (seq) => replayEvents(db, seq),
    buildAll: async () => void (await rebuild(db, readModels)),
    inWrite: (work) => inWriteTransaction(db, work),
    rebuildChanged: true,
  });
  // A new database gets its tables without a word; a projection rebuilt from history is reported.
  return [...changed, ...(end > 0 ? missing : [])];
}
