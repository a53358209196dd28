import { verifyChain } from '../../audit/verify-chain.ts';
import { checkpointDifferences, tableDifference } from '../../audit/compare.ts';
import { buildViaScratch } from './scratch-build.ts';
import { storageFaultOf } from '../sqlite/storage-fault.ts';
import type { TableNames } from '../../projections/projector.ts';
import { storedEventsAfter } from './rebuild.ts';
import { projectors, readCheckpoints } from '../../projections/registry.ts';
import type { Verification } from '../engine.ts';
import type { Sql } from './connection.ts';
import { storageErrorOf } from './errors.ts';
import { lastSeq, readEvents } from './event-log.ts';
import { postgresSession } from './session.ts';

const verifyNames: TableNames = (name) => `verifying_${name}`;

/**
 * Walks the chain and compares the read tables with a fresh build of every projection, inside one REPEATABLE READ
 * transaction on `sql` (a connection of the caller's own): the log, the tables and the build are one snapshot even
 * while servers write. The build goes into tables beside the served ones and the transaction is rolled back: the
 * database is left exactly as it was.
 */
export async function verifyPostgres(sql: Sql): Promise<Verification> {
  const tables = projectors.flatMap((p) => p.tables);
  await sql.sql('BEGIN ISOLATION LEVEL REPEATABLE READ');
  try {
    const chain = await verifyChain(readEvents(sql));
    const until = await lastSeq(sql);
    const session = postgresSession(() => sql);
    const differences: string[] = [];
    const built = await buildOrExplain(sql, until);
    if (typeof built === 'string') differences.push(built);
    else {
      differences.push(...checkpointDifferences(await readCheckpoints(session), until));
      for (const table of tables) differences.push(...(await tableDifferences(sql, table)));
    }
    return { chain, projections: { ok: differences.length === 0, tables: tables.length, differences } };
  } finally {
    await sql.sql('ROLLBACK');
  }
}

/** A log edited by hand may not even replay: that is a finding, not a crash (a storage fault is neither). */
async function buildOrExplain(sql: Sql, until: number): Promise<number | string> {
  await sql.sql('SAVEPOINT build');
  try {
    // Inside the verify's transaction; compared row by row: the read indexes would never be used.
    await buildViaScratch(storedEventsAfter(sql, 0, until), until, sql, verifyNames, (work) => work());
    await sql.sql('RELEASE build');
    return until;
  } catch (error) {
    // The scratch build's disk, or the database's.
    const fault = storageFaultOf(error) ?? storageErrorOf(error);
    if (fault) throw fault;
    await sql.sql('ROLLBACK TO build');
    return `the log does not replay: ${error instanceof Error ? error.message : String(error)}`;
  }
}

async function tableDifferences(sql: Sql, table: string): Promise<string[]> {
  const [{ found }] = await sql.sql<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [`"${table}"`]);
  if (!found) return [`table ${table} is missing`];
  const onlyIn = (a: string, b: string) => `SELECT * FROM "${a}" EXCEPT SELECT * FROM "${b}"`;
  const count = async (a: string, b: string) => (await sql.sql<{ n: number }>(`SELECT count(*) AS n FROM (${onlyIn(a, b)}) AS d`))[0].n;
  const rebuiltTable = verifyNames(table);
  const live = await count(table, rebuiltTable);
  const rebuilt = await count(rebuiltTable, table);
  if (live === 0 && rebuilt === 0) return [];
  const [first] = await sql.sql(`${live > 0 ? onlyIn(table, rebuiltTable) : onlyIn(rebuiltTable, table)} LIMIT 1`);
  return [tableDifference(table, live, rebuilt, first)];
}
