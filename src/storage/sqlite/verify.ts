import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Sqlite, openSqlite } from './open.ts';
import { sqliteSession } from './session.ts';
import { tableExists, withAttached } from './maintenance.ts';
import { storageFaultOf } from '../storage-fault.ts';
import { buildProjections } from './rebuild.ts';
import { type FreshBuild, type ProjectionCheck, type ReadModels, type Verification, servedNames } from '../read-tables.ts';

/**
 * `verify` on SQLite (`read-models/verify.ts`): the fresh build goes into a scratch database attached as `rebuilt`, and
 * the live database is only read, inside one read transaction, so the log and tables compared are one consistent
 * snapshot even while a server writes.
 */
export async function verifySqlite(db: Sqlite, readModels: ReadModels): Promise<Verification> {
  const scratch = openScratch(scratchPath(db));
  try {
    return await readModels.verify(freshBuild(db, scratch, readModels));
  } finally {
    removeScratch(scratch);
  }
}

/** The read tables compared with a fresh rebuild (what `verifySqlite` finds of them). */
export async function compareWithRebuild(db: Sqlite, readModels: ReadModels): Promise<ProjectionCheck> {
  return (await verifySqlite(db, readModels)).projections;
}

function freshBuild(db: Sqlite, scratch: Sqlite, readModels: ReadModels): FreshBuild {
  const session = sqliteSession(db);
  return {
    // A database is attached outside a transaction only.
    snapshot: (work) =>
      withAttached(db, scratch.name, 'rebuilt', async () => {
        db.exec('BEGIN');
        try {
          return await work(session);
        } finally {
          db.exec('COMMIT');
        }
      }),
    async build(until) {
      // Compared row by row: the read indexes would never be used.
      await buildProjections(scratch, db, readModels, { until }, { names: servedNames, readIndexes: false });
      scratch.close();
    },
    built: (table) => `rebuilt."${table}"`,
    served: async (table) => tableExists(db, table),
    storageErrorOf: storageFaultOf,
  };
}

/** Where the fresh rebuild is built: beside the database, or in tmp for one in memory. */
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
  scratch.close();
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(scratch.name + suffix, { force: true });
}
