import type { Sql } from './connection.ts';
import { storageErrorOf } from './errors.ts';
import * as foundation from './migrations/2026-11-25-01-foundation.ts';
import * as auditSessions from './migrations/2026-11-26-01-audit-sessions.ts';

/** Every migration, by name; names sort by date, which is the order they run in. */
const migrations: [name: string, statements: string[]][] = [
  ['2026-11-25-01-foundation', foundation.statements],
  ['2026-11-26-01-audit-sessions', auditSessions.statements],
];

/** Any constant of the application's own: the advisory lock servers starting together migrate under. */
const MIGRATION_LOCK = 7_166_707_962;

/**
 * Brings the schema up to date in one transaction on `session` (DDL is transactional in PostgreSQL: a failed
 * migration leaves nothing behind). Servers starting together on an empty database take turns on an advisory
 * lock, so each migration runs once.
 */
export async function migrate(session: Sql): Promise<void> {
  await session.sql('BEGIN');
  try {
    await session.sql('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await session.sql('CREATE TABLE IF NOT EXISTS schema_migrations (name text COLLATE "C" PRIMARY KEY, applied_at text NOT NULL)');
    const done = new Set((await session.sql<{ name: string }>('SELECT name FROM schema_migrations')).map((row) => row.name));
    for (const [name, statements] of migrations) {
      if (done.has(name)) continue;
      try {
        for (const statement of statements) await session.sql(statement);
      } catch (error) {
        // A full or read-only database is named as such, not as a broken migration.
        throw storageErrorOf(error) ?? new Error(`migration ${name} failed: ${(error as Error).message}`, { cause: error });
      }
      await session.sql('INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)', [name, new Date().toISOString()]);
    }
    await session.sql('COMMIT');
  } catch (error) {
    await session.sql('ROLLBACK');
    throw storageErrorOf(error) ?? error;
  }
}
