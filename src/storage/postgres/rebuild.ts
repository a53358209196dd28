import type { StoredEvent } from '../../events/rows.ts';
import { toStoredEvent } from '../../events/store.ts';
import { type Sql, openPostgres } from './connection.ts';
import { storageErrorOf, unreachableOf } from './errors.ts';
import { PostgresWriter } from './writer.ts';
import { lastSeq, readEvents } from './event-log.ts';
import { renameBuilt, tablesNamedWith } from './read-tables.ts';
import { postgresSession } from './session.ts';
import type { TableNames } from '../../projections/projector.ts';
import { Projections, createReadIndexes, projectors, readModelVersions, setCheckpoints } from '../../projections/registry.ts';
import { buildViaScratch } from './scratch-build.ts';
import type { RebuildProgress } from '../../projections/rebuild.ts';

/** A rebuild writes its tables and indexes beside the served ones, under this prefix, until the swap renames them. */
const BUILD_PREFIX = 'rebuilding_';
const buildNames: TableNames = (name) => BUILD_PREFIX + name;

/** The events after `seq` on `sql` up to `until`, in their current shape; `onProgress` told every thousand. */
export async function* storedEventsAfter(sql: Sql, seq: number, until = Infinity, onProgress?: (progress: RebuildProgress) => void): AsyncGenerator<StoredEvent> {
  let done = 0;
  for await (const row of readEvents(sql, seq, 1000)) {
    if (row.seq > until) return;
    yield toStoredEvent(row);
    if (++done % 1000 === 0) onProgress?.({ done, total: until - seq });
  }
  onProgress?.({ done, total: until - seq });
}

/** Runs `work` in a transaction of `sql` (a connection of the caller's own), rolled back when it fails. */
export async function inTransaction<T>(sql: Sql, work: () => Promise<T>, begin = 'BEGIN'): Promise<T> {
  await sql.sql(begin);
  try {
    const result = await work();
    await sql.sql('COMMIT');
    return result;
  } catch (error) {
    await sql.sql('ROLLBACK').catch(() => {});
    throw error;
  }
}

/**
 * Rebuilds every read table of a PostgreSQL database from its log while servers keep serving and writing: the
 * tables are built (`buildViaScratch`) and loaded beside the served ones on `build` (a connection of the rebuild's
 * own, without the chain head's lock), then swapped in by one unit of `writer`, under the lock: the served tables dropped, the built ones
 * renamed, the events appended meanwhile applied, the checkpoints and the read models' versions set. DDL is
 * transactional: every server's next statement reads the new tables, none ever sees a half-built state. An
 * interrupted rebuild leaves the served tables; its leftovers are dropped by the next one.
 */
export async function rebuildPostgres(build: Sql, writer: PostgresWriter, options: { onProgress?: (progress: RebuildProgress) => void } = {}): Promise<{ events: number }> {
  await dropBuildTables(build);
  const until = await lastSeq(build);
  const transaction = <T>(work: () => Promise<T>) => inTransaction(build, work);
  await buildViaScratch(storedEventsAfter(build, 0, until, options.onProgress), until, build, buildNames, transaction);
  // Built from the loaded tables at once, as on SQLite.
  await transaction(() => createReadIndexes(postgresSession(() => build), projectors, buildNames));
  await writer.run(async () => {
    const swap = writer.writesFor('the swap');
    const served = postgresSession(() => swap);
    for (const p of projectors) {
      for (const table of p.tables) {
        await swap.sql(`DROP TABLE IF EXISTS "${table}"`);
        await renameBuilt(swap, buildNames(table), table, BUILD_PREFIX);
      }
    }
    await swap.sql(`DROP TABLE "${buildNames('projection_checkpoints')}"`);
    await setCheckpoints(served, projectors, until);
    // What was written while the tables were built.
    const projections = new Projections(served);
    await projections.replay(storedEventsAfter(swap, until));
    await projections.flush();
    await swap.sql('UPDATE chain_head SET projectors = $1 WHERE id = 1', [readModelVersions()]);
  });
  return { events: until };
}

/**
 * The read tables of the database `url` names rebuilt (`rebuildPostgres`) on a connection of the rebuild's own,
 * swapped in under the chain head's lock while servers keep serving and writing.
 */
export async function rebuildDatabase(url: string, onProgress: (progress: RebuildProgress) => void): Promise<{ events: number }> {
  const db = openPostgres(url, { poolSize: 1 });
  try {
    return await rebuildPostgres(db.session, new PostgresWriter(db.session), { onProgress }).catch((error: unknown) => {
      throw unreachableOf(error, url) ?? storageErrorOf(error) ?? error;
    });
  } finally {
    await db.close();
  }
}

async function dropBuildTables(sql: Sql): Promise<void> {
  for (const table of await tablesNamedWith(sql, BUILD_PREFIX)) await sql.sql(`DROP TABLE "${table}"`);
}
