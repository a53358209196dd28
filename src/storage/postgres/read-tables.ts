import type { Sql } from './connection.ts';

/**
 * The PostgreSQL side of maintaining the read tables: what the schema holds, and the renames of a swap. Used by
 * rebuild and verify.
 */

/** The tables of the current schema whose names start with `prefix` (a rebuild's, left by one that was interrupted). */
export async function tablesNamedWith(sql: Sql, prefix: string): Promise<string[]> {
  const rows = await sql.sql<{ name: string }>('SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND starts_with(tablename, $1)', [prefix]);
  return rows.map((row) => row.name);
}

/**
 * Gives table `built` the name `served`, and each of its indexes (its key's and uniqueness constraints' too) the
 * name it would have been created with: the same name without `prefix`. A later build creates its own under the
 * prefixed names again.
 */
export async function renameBuilt(sql: Sql, built: string, served: string, prefix: string): Promise<void> {
  await sql.sql(`ALTER TABLE "${built}" RENAME TO "${served}"`);
  const indexes = await sql.sql<{ name: string }>('SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1', [served]);
  for (const { name } of indexes) if (name.startsWith(prefix)) await sql.sql(`ALTER INDEX "${name}" RENAME TO "${name.slice(prefix.length)}"`);
}
