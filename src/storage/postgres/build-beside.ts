import { storageFaultOf } from '../storage-fault.ts';
import type { BuildBeside, FreshBuild, TableNames } from '../read-tables.ts';
import { type Sql, openPostgres } from './connection.ts';
import { storageErrorOf, unreachableOf } from './errors.ts';
import { PostgresWriter } from './writer.ts';
import { migrate } from './migrate.ts';
import { lastSeq } from './event-log.ts';
import { renameBuilt, tablesNamedWith } from './read-tables.ts';
import { postgresSession } from './session.ts';
import { buildSite, storedEventsAfter } from './build-site.ts';

/** Runs `work` in a transaction of `sql` (a connection of the caller's own), rolled back when it fails. */
async function inTransaction<T>(sql: Sql, work: () => Promise<T>): Promise<T> {
  await sql.sql('BEGIN');
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
 * PostgreSQL's build beside the served tables: built on `build`, a connection of the rebuild's own without the
 * chain head's lock, a transaction at a time; swapped in by one unit of `writer`, under the lock, which also
 * records the read models' versions as the database's. DDL is transactional: every server's next statement reads
 * the new tables. A renamed table's indexes are renamed with it.
 */
export function buildBeside(build: Sql, writer: PostgresWriter): BuildBeside {
  return {
    async dropTablesNamedWith(prefix) {
      for (const table of await tablesNamedWith(build, prefix)) await build.sql(`DROP TABLE "${table}"`);
    },
    logEnd: () => lastSeq(build),
    build: (work) => work(buildSite(build, (step) => inTransaction(build, step))),
    renamesIndexes: true,
    swap: (versions, work) =>
      writer.run(async () => {
        const swap = writer.writesFor('the swap');
        await work(postgresSession(() => swap), (seq) => storedEventsAfter(swap, seq));
        await swap.sql('UPDATE chain_head SET projectors = $1 WHERE id = 1', [versions]);
      }),
    async renameBuilt(_session, tables, names) {
      const swap = writer.writesFor('the swap');
      for (const table of tables) {
        await swap.sql(`DROP TABLE IF EXISTS "${table}"`);
        // The built indexes' names are the served ones under the build's prefix, `names('')`.
        await renameBuilt(swap, names(table), table, names(''));
      }
    },
  };
}

/**
 * A build beside the served tables of the database `url` names, on a connection of the rebuild's own, swapped in
 * under the chain head's lock while servers keep serving and writing (`tradebook rebuild`). Migrated first, as
 * SQLite's ordinary open is: a database nothing has opened yet gets its log to build from.
 */
export async function besidePostgresDatabase<T>(url: string, work: (beside: BuildBeside) => Promise<T>): Promise<T> {
  const db = openPostgres(url, { poolSize: 1 });
  try {
    return await migrate(db.session)
      .then(() => work(buildBeside(db.session, new PostgresWriter(db.session))))
      .catch((error: unknown) => {
        throw unreachableOf(error, url) ?? storageErrorOf(error) ?? error;
      });
  } finally {
    await db.close();
  }
}

const verifyNames: TableNames = (name) => `verifying_${name}`;

/**
 * A fresh build for `verify`, inside one REPEATABLE READ transaction on `sql` (a connection of the caller's own):
 * the log, the tables and the build are one snapshot even while servers write. The build goes into tables beside
 * the served ones and the transaction is rolled back: the database is left exactly as it was.
 */
export function freshBuild<T>(sql: Sql, work: (fresh: FreshBuild) => Promise<T>): Promise<T> {
  return work({
    async snapshot(read) {
      await sql.sql('BEGIN ISOLATION LEVEL REPEATABLE READ');
      try {
        return await read(postgresSession(() => sql));
      } finally {
        await sql.sql('ROLLBACK');
      }
    },
    async build(build) {
      await sql.sql('SAVEPOINT build');
      try {
        // Inside the verify's transaction.
        await build(buildSite(sql, (step) => step()), verifyNames);
        await sql.sql('RELEASE build');
      } catch (error) {
        await sql.sql('ROLLBACK TO build').catch(() => {});
        throw error;
      }
    },
    built: (table) => `"${verifyNames(table)}"`,
    served: async (table) => (await sql.sql<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [`"${table}"`]))[0].found,
    // The scratch build's disk, or the database's.
    storageErrorOf: (error) => storageFaultOf(error) ?? storageErrorOf(error),
  });
}
