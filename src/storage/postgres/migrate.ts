import type { Kysely } from 'kysely';
import { kysely, sql } from '../kysely.ts';
import { migrateSchema } from '../migrate.ts';
import type { Sql } from './connection.ts';
import { connectionLost, storageErrorOf } from './errors.ts';
import { kyselyOn } from './kysely.ts';

/**
 * The advisory lock servers starting together migrate under, any constant of the application's own. Releases
 * before kysely's Migrator took it too (for their transaction), so an older and a newer server starting together
 * still take turns.
 */
const MIGRATION_LOCK = 7_166_707_962;

/**
 * Brings the schema up to date on `session` with kysely's Migrator, in one transaction (DDL is transactional in
 * PostgreSQL: a failed migration leaves nothing behind). The whole run, kysely's own bookkeeping tables created
 * included, holds the advisory lock: servers starting together on an empty database take turns, and each
 * migration runs once. A lost or refused connection is thrown as it came, for the caller to name the database.
 */
export async function migrate(session: Sql): Promise<void> {
  const db = kyselyOn(session);
  // Constants written in, not parameters: a statement with parameters costs a round trip more the first time.
  await session.sql(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
  try {
    await adoptRunnerRecords(db);
    await migrateSchema(db, 'postgres', (error) => (connectionLost(error) ? undefined : storageErrorOf(error)));
  } finally {
    // A failed unlock is a lost connection, which took the lock with it; the error that matters is the one before.
    await session.sql(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`).catch(() => {});
  }
}

/**
 * The migrations that each migration of the runner releases before kysely's recorded in `schema_migrations` stands
 * for: its foundation was the schema of the first three (the token hashes in place from the start).
 */
const RUNNER_MIGRATIONS: Record<string, string[]> = {
  '2026-11-25-01-foundation': ['2026-11-22-01-foundation', '2026-11-23-01-point-in-time', '2026-11-23-02-access-token-hashes'],
  '2026-11-26-01-audit-sessions': ['2026-11-26-01-audit-sessions'],
};

/**
 * A database migrated by a release before kysely's Migrator ran on PostgreSQL has `schema_migrations` and no
 * `kysely_migration`: its records are written into `kysely_migration` as the migrations they stand for, so none
 * runs again. `schema_migrations` is left as it was, so a server of the release before can still open the database.
 */
async function adoptRunnerRecords(db: Kysely<any>): Promise<void> {
  const [found] = (await sql<{ runner: boolean; kysely: boolean }>`SELECT to_regclass('schema_migrations') IS NOT NULL AS runner, to_regclass(${sql.lit(kysely.DEFAULT_MIGRATION_TABLE)}) IS NOT NULL AS kysely`.execute(db)).rows;
  if (!found.runner || found.kysely) return;
  await db.transaction().execute(async (trx) => {
    const done = await trx.selectFrom('schema_migrations').select(['name', 'applied_at']).orderBy('name').execute();
    // As kysely's Migrator creates it.
    await trx.schema
      .createTable(kysely.DEFAULT_MIGRATION_TABLE)
      .addColumn('name', 'varchar(255)', (c) => c.notNull().primaryKey())
      .addColumn('timestamp', 'varchar(255)', (c) => c.notNull())
      .execute();
    for (const { name, applied_at } of done) {
      const standsFor = RUNNER_MIGRATIONS[name];
      if (!standsFor) throw new Error(`schema_migrations records ${name}, a migration this release does not know`);
      await trx.insertInto(kysely.DEFAULT_MIGRATION_TABLE).values(standsFor.map((migration) => ({ name: migration, timestamp: applied_at }))).execute();
    }
  });
}
