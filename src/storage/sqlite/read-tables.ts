import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { StoredEvent } from '../../events/store.ts';
import { type BuildBeside, type BuildSite, type FreshBuild, type ReadTableStore, servedNames } from '../read-tables.ts';
import { storageFaultOf } from '../storage-fault.ts';
import { lastSeq, replayEvents } from './event-log.ts';
import { inWriteTransaction, indexesOf, tableExists, tablesNamedWith, withAttached, withBuildSettings, withTemporaryFiles } from './maintenance.ts';
import { type Sqlite, openSqlite } from './open.ts';
import { sqliteSession } from './session.ts';

/**
 * SQLite's read tables as the read-models layer builds, rebuilds and verifies them (`storage/read-tables.ts`): the
 * embedded engine applies an event without a round trip, so every build writes its tables directly.
 */

// Rows read a query at a time: each piece is alive at once, and larger pieces raised the peak RSS measurably.
const READ_CHUNK = 200;

/** The events of `log` up to and including `until`. */
function* upTo(log: Iterable<StoredEvent>, until: number): Generator<StoredEvent> {
  for (const event of log) {
    if (event.seq > until) return;
    yield event;
  }
}

/** A build writing into `target` from the log of `source` (the same database, or the one a fresh build checks). */
export function buildSite(target: Sqlite, source: Sqlite): BuildSite {
  return {
    session: sqliteSession(target),
    // Every transaction takes the write lock at BEGIN: a transaction that read first could not wait for a server's
    // writer to finish (SQLite fails such an upgrade at once rather than risk a deadlock). A build in the live
    // database shares it with a server's writers a transaction at a time.
    transaction: (work) => inWriteTransaction(target, work),
    events: (until) => upTo(replayEvents(source, 0, READ_CHUNK), until),
  };
}

/**
 * SQLite's build beside the served tables: in the same file, on the connection `db`, without an fsync a commit until
 * the swap (`withBuildSettings`). SQLite renames no index: the built tables' are dropped in the swap and the read
 * models create theirs again under the served names, once the rows are in.
 */
export function buildBeside(db: Sqlite): BuildBeside {
  const session = sqliteSession(db);
  return {
    async dropTablesNamedWith(prefix) {
      const tables = tablesNamedWith(db, prefix);
      if (tables.length > 0) db.transaction(() => tables.forEach((table) => db.exec(`DROP TABLE main."${table}"`))).immediate();
    },
    logEnd: async () => lastSeq(db),
    build: (work) => withBuildSettings(db, () => work(buildSite(db, db))),
    renamesIndexes: false,
    // The swap creates every index of the built tables: their sorts spill to files, as the build's do, rather than
    // into this connection's memory (a serving connection keeps its temporaries there).
    swap: (_versions, work) => withTemporaryFiles(db, () => inWriteTransaction(db, () => work(session, (seq) => replayEvents(db, seq)))),
    async renameBuilt(_session, tables, names) {
      const indexes = indexesOf(db);
      for (const table of tables) {
        db.exec(`DROP TABLE IF EXISTS main."${table}"`);
        db.exec(`ALTER TABLE main."${names(table)}" RENAME TO "${table}"`);
        for (const index of indexes(table)) db.exec(`DROP INDEX main."${index}"`);
      }
    },
  };
}

/**
 * The read tables of the open database `db`: at open, every table is built beside the served ones and swapped in
 * (a build by a version that differs too); a fresh build is written to a scratch file (`freshBuild`).
 */
export function sqliteReadTables(db: Sqlite): ReadTableStore {
  return {
    atOpen: (work) =>
      work({
        session: sqliteSession(db),
        eventsAfter: (seq) => replayEvents(db, seq),
        inWrite: (write) => inWriteTransaction(db, write),
        buildAll: { beside: buildBeside(db) },
        rebuildChanged: true,
      }),
    beside: async () => buildBeside(db),
    fresh: (work) => freshBuild(db, work),
  };
}

/**
 * A fresh build for `verify`: written to a scratch database attached as `rebuilt`, while the live database is only
 * read, inside one read transaction, so the log and tables compared are one consistent snapshot even while a server
 * writes. The scratch database is removed whatever happens.
 */
export async function freshBuild<T>(db: Sqlite, work: (fresh: FreshBuild) => Promise<T>): Promise<T> {
  const scratch = openScratch(scratchPath(db));
  const session = sqliteSession(db);
  try {
    return await work({
      // A database is attached outside a transaction only.
      snapshot: (read) =>
        withAttached(db, scratch.name, 'rebuilt', () =>
          withTemporaryFiles(db, async () => {
            db.exec('BEGIN');
            try {
              return await read(session);
            } finally {
              db.exec('COMMIT');
            }
          }),
        ),
      async build(build) {
        await build(buildSite(scratch, db), servedNames);
        scratch.close();
      },
      built: (table) => `rebuilt."${table}"`,
      served: async (table) => tableExists(db, table),
      storageErrorOf: storageFaultOf,
    });
  } finally {
    removeScratch(scratch);
  }
}

/** Where the fresh build is written: beside the database, or in tmp for one in memory. */
function scratchPath(db: Sqlite): string {
  const base = db.name === ':memory:' || db.name === '' ? path.join(os.tmpdir(), `tradebook-${process.pid}-${Date.now()}.db`) : db.name;
  return `${base}.verify`;
}

function openScratch(file: string): Sqlite {
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(file + suffix, { force: true });
  // A scratch database is thrown away if anything goes wrong, so it needs no journal and no fsync.
  return openSqlite(file, { scratch: true });
}

function removeScratch(scratch: Sqlite): void {
  if (scratch.open) scratch.close();
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(scratch.name + suffix, { force: true });
}

/**
 * The page cache of `tradebook rebuild`'s connection, in KB. With a writer's 32 MB (`openSqlite`) a rebuild of the
 * seeded log peaked at 224 MiB of RSS; with 8 MB at 187 MiB for the same CPU, and a rebuild of 100,000 products in
 * random id order took no more CPU (docs/performance.md).
 */
const REBUILD_CACHE_KB = 8 * 1024;

/**
 * A build beside the served tables of the SQLite file `file`, on a connection of its own, closed after `work`:
 * what `tradebook rebuild`'s thread runs (`read-models/rebuild-thread.ts`), loading the SQLite adapter alone.
 */
export async function besideSqliteFile<T>(file: string, work: (beside: BuildBeside) => Promise<T>): Promise<T> {
  const db = openSqlite(file);
  db.pragma(`cache_size = -${REBUILD_CACHE_KB}`);
  try {
    return await work(buildBeside(db));
  } finally {
    db.close();
  }
}
