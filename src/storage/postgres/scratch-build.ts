import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { StoredEvent } from '../../events/rows.ts';
import { inWriteTransaction } from '../sqlite/maintenance.ts';
import { type Sqlite, openSqlite } from '../sqlite/open.ts';
import { sqliteSession } from '../sqlite/session.ts';
import type { Sql } from './connection.ts';
import { MAX_PARAMETERS } from './event-log.ts';
import { placeholders } from '../sql.ts';
import { postgresSession } from './session.ts';
import { buildInto } from '../../projections/build.ts';
import { type TableNames, servedNames } from '../../projections/projector.ts';
import { createProjectionTables, projectors, setCheckpoints } from '../../projections/registry.ts';

/** Rows a load statement carries at most: few statements, and a statement's parameters far below the limit. */
const LOAD_ROWS = 1000;

/**
 * Builds every read table of PostgreSQL from `events` (the log up to `until`, in order) by way of a scratch SQLite
 * file: the projectors write the same rows on both engines (`test/storage/postgres/cross-engine.test.ts`), and the
 * embedded engine applies an event without a round trip, where PostgreSQL would take one a statement (a few
 * hundred events/s). The rows are then loaded into `target` under `names` with multi-row inserts, a table a
 * `transaction`, and the checkpoints set at `until`; the read indexes are the caller's. The scratch file is removed
 * whatever happens.
 */
export async function buildViaScratch(
  events: AsyncIterable<StoredEvent>,
  until: number,
  target: Sql,
  names: TableNames,
  transaction: <T>(work: () => Promise<T>) => Promise<T>,
): Promise<void> {
  const file = path.join(os.tmpdir(), `tradebook-build-${process.pid}-${Date.now()}.db`);
  // A scratch database is thrown away if anything goes wrong: no journal, no fsync.
  const scratch = openSqlite(file, { scratch: true });
  try {
    await buildInto(sqliteSession(scratch), servedNames, events[Symbol.asyncIterator](), {
      chunk: 1000,
      readIndexes: false,
      transaction: (work) => inWriteTransaction(scratch, work),
    });
    const session = postgresSession(() => target);
    await transaction(() => createProjectionTables(session, projectors, 0, names, false));
    for (const table of projectors.flatMap((p) => p.tables)) await transaction(() => load(scratch, table, target, names(table)));
    await transaction(() => setCheckpoints(session, projectors, until, names));
  } finally {
    scratch.close();
    for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(file + suffix, { force: true });
  }
}

/** Every row of the scratch database's `table` into `into`, a statement of LOAD_ROWS rows at a time, columns in their order. */
async function load(scratch: Sqlite, table: string, target: Sql, into: string): Promise<void> {
  const rows = scratch.prepare(`SELECT * FROM "${table}"`).raw();
  const columns = rows.columns().length;
  const perStatement = Math.min(LOAD_ROWS, Math.floor(MAX_PARAMETERS / columns));
  let chunk: unknown[][] = [];
  const insert = async () => {
    if (chunk.length === 0) return;
    await target.values(`INSERT INTO "${into}" VALUES ${placeholders(chunk.length, columns, true)}`, chunk.flat());
    chunk = [];
  };
  for (const row of rows.iterate() as Iterable<unknown[]>) {
    chunk.push(row);
    if (chunk.length === perStatement) await insert();
  }
  await insert();
}
