import type { StoredEvent } from '../../events/rows.ts';
import { toStoredEvent } from '../../events/store.ts';
import { type Sql, openPostgres } from './connection.ts';
import { storageErrorOf, unreachableOf } from './errors.ts';
import { PostgresWriter } from './writer.ts';
import { migrate } from './migrate.ts';
import { lastSeq, readEvents } from './event-log.ts';
import { renameBuilt, tablesNamedWith } from './read-tables.ts';
import { postgresSession } from './session.ts';
import { loadTarget } from './load-target.ts';
import type { BuildBeside, ReadModels, RebuildProgress } from '../read-tables.ts';

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
 * PostgreSQL's build beside the served tables: built (`buildViaScratch`) and loaded on `build`, a connection of the
 * rebuild's own without the chain head's lock, its read indexes created there at once; swapped in by one unit of
 * `writer`, under the lock, which also records this code's read models as the database's. DDL is transactional:
 * every server's next statement reads the new tables.
 */
function buildBeside(build: Sql, writer: PostgresWriter, readModels: ReadModels): BuildBeside {
  const transaction = <T>(work: () => Promise<T>) => inTransaction(build, work);
  return {
    async dropTablesNamedWith(prefix) {
      for (const table of await tablesNamedWith(build, prefix)) await build.sql(`DROP TABLE "${table}"`);
    },
    logEnd: () => lastSeq(build),
    async build(names, until, onProgress) {
      await readModels.buildViaScratch(storedEventsAfter(build, 0, until, onProgress), until, loadTarget(build), names, transaction);
      await transaction(() => readModels.createReadIndexes(postgresSession(() => build), names));
    },
    swap: (work) =>
      writer.run(async () => {
        const swap = writer.writesFor('the swap');
        await work(postgresSession(() => swap), (seq) => storedEventsAfter(swap, seq));
        await swap.sql('UPDATE chain_head SET projectors = $1 WHERE id = 1', [readModels.versions]);
      }),
    async renameBuilt(_, names) {
      const swap = writer.writesFor('the swap');
      for (const table of readModels.tables) {
        await swap.sql(`DROP TABLE IF EXISTS "${table}"`);
        // The built indexes' names are the served ones under the build's prefix, `names('')`.
        await renameBuilt(swap, names(table), table, names(''));
      }
    },
  };
}

/** Every read table of the database on `build` rebuilt beside the served ones and swapped in by `writer` (`read-models/rebuild.ts`). */
export function rebuildPostgres(
  build: Sql,
  writer: PostgresWriter,
  readModels: ReadModels,
  options: { onProgress?: (progress: RebuildProgress) => void } = {},
): Promise<{ events: number }> {
  return readModels.rebuild(buildBeside(build, writer, readModels), options);
}

/**
 * The read tables of the database `url` names rebuilt (`rebuildPostgres`) on a connection of the rebuild's own,
 * swapped in under the chain head's lock while servers keep serving and writing. Migrated first, as SQLite's
 * ordinary open is: a database nothing has opened yet gets its log to build from.
 */
export async function rebuildDatabase(url: string, readModels: ReadModels, onProgress: (progress: RebuildProgress) => void): Promise<{ events: number }> {
  const db = openPostgres(url, { poolSize: 1 });
  try {
    return await migrate(db.session)
      .then(() => rebuildPostgres(db.session, new PostgresWriter(db.session), readModels, { onProgress }))
      .catch((error: unknown) => {
        throw unreachableOf(error, url) ?? storageErrorOf(error) ?? error;
      });
  } finally {
    await db.close();
  }
}
