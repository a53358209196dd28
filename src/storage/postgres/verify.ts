import type { FreshBuild, ReadModels, TableNames, Verification } from '../read-tables.ts';
import { storageFaultOf } from '../storage-fault.ts';
import type { Sql } from './connection.ts';
import { storageErrorOf } from './errors.ts';
import { storedEventsAfter } from './rebuild.ts';
import { loadTarget } from './load-target.ts';
import { postgresSession } from './session.ts';

const verifyNames: TableNames = (name) => `verifying_${name}`;

/**
 * `verify` on PostgreSQL (`read-models/verify.ts`), inside one REPEATABLE READ transaction on `sql` (a connection of the
 * caller's own): the log, the tables and the build are one snapshot even while servers write. The build goes into
 * tables beside the served ones and the transaction is rolled back: the database is left exactly as it was.
 */
export function verifyPostgres(sql: Sql, readModels: ReadModels): Promise<Verification> {
  const session = postgresSession(() => sql);
  const fresh: FreshBuild = {
    async snapshot(work) {
      await sql.sql('BEGIN ISOLATION LEVEL REPEATABLE READ');
      try {
        return await work(session);
      } finally {
        await sql.sql('ROLLBACK');
      }
    },
    async build(until) {
      await sql.sql('SAVEPOINT build');
      try {
        // Inside the verify's transaction; compared row by row: the read indexes would never be used.
        await readModels.buildViaScratch(storedEventsAfter(sql, 0, until), until, loadTarget(sql), verifyNames, (work) => work());
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
  };
  return readModels.verify(fresh);
}
