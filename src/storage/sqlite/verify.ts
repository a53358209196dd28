import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Sqlite, openSqlite } from './open.ts';
import { sqliteSession } from './session.ts';
import { tableExists, withAttached } from './maintenance.ts';
import { storageFaultOf } from './storage-fault.ts';
import { readEvents } from './event-log.ts';
import type { Verification } from '../engine.ts';
import { verifyChain } from '../../audit/verify-chain.ts';
import { type ProjectionCheck, checkpointDifferences, tableDifference } from '../../audit/compare.ts';
import { servedNames } from '../../projections/projector.ts';
import { buildProjections } from './rebuild.ts';
import { projectors, readCheckpoints } from '../../projections/registry.ts';

/** The chain walked, then the read tables compared with a fresh rebuild (`compareWithRebuild`). */
export async function verifySqlite(db: Sqlite): Promise<Verification> {
  return { chain: await verifyChain(readEvents(db)), projections: await compareWithRebuild(db) };
}

/**
 * Rebuilds every projection from the log into a scratch database and compares it with the live read tables,
 * row by row (every column), both ways. The live database is only read, inside one read transaction, so
 * the log and tables compared are one consistent snapshot even while a server writes.
 */
export async function compareWithRebuild(db: Sqlite): Promise<ProjectionCheck> {
  const scratch = openScratch(scratchPath(db));
  const differences: string[] = [];
  const tables = projectors.flatMap((p) => p.tables);
  try {
    await withAttached(db, scratch.name, 'rebuilt', async () => {
      db.exec('BEGIN');
      try {
        const built = await rebuildOrExplain(scratch, db);
        scratch.close();
        if (typeof built === 'string') differences.push(built);
        else {
          differences.push(...checkpointDifferences(await readCheckpoints(sqliteSession(db)), built));
          for (const table of tables) differences.push(...tableDifferences(db, table));
        }
      } finally {
        db.exec('COMMIT');
      }
    });
  } finally {
    removeScratch(scratch);
  }
  return { ok: differences.length === 0, tables: tables.length, differences };
}

/** A log edited by hand may not even replay (data that is not JSON, a record that never existed): that is a finding, not a crash. */
async function rebuildOrExplain(scratch: Sqlite, db: Sqlite): Promise<number | string> {
  try {
    // Compared row by row: the read indexes would never be used.
    return await buildProjections(scratch, db, {}, { names: servedNames, readIndexes: false });
  } catch (error) {
    // A full or failing disk says nothing about the log: the check could not be made.
    const fault = storageFaultOf(error);
    if (fault) throw fault;
    return `the log does not replay: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function tableDifferences(db: Sqlite, table: string): string[] {
  if (!tableExists(db, table)) return [`table ${table} is missing`];
  const onlyIn = (a: string, b: string) => db.prepare(`SELECT * FROM ${a}."${table}" EXCEPT SELECT * FROM ${b}."${table}"`);
  const count = (a: string, b: string) => db.prepare(`SELECT count(*) FROM (SELECT * FROM ${a}."${table}" EXCEPT SELECT * FROM ${b}."${table}")`).pluck().get() as number;
  const live = count('main', 'rebuilt');
  const rebuilt = count('rebuilt', 'main');
  if (live === 0 && rebuilt === 0) return [];
  return [tableDifference(table, live, rebuilt, (live > 0 ? onlyIn('main', 'rebuilt') : onlyIn('rebuilt', 'main')).get() as object)];
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
