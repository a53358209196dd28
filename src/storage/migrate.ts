import type { Kysely, Migration } from 'kysely';
import { kysely } from './kysely.ts';
import type { SchemaDialect } from './migrations/column-types.ts';
import * as foundation from './migrations/2026-11-22-01-foundation.ts';
import * as pointInTime from './migrations/2026-11-23-01-point-in-time.ts';
import * as accessTokenHashes from './migrations/2026-11-23-02-access-token-hashes.ts';
import * as auditSessions from './migrations/2026-11-26-01-audit-sessions.ts';
import * as keyVersion from './migrations/2026-11-27-01-key-version.ts';
import * as auditSessionIndexes from './migrations/2026-11-28-01-audit-session-indexes.ts';

interface SchemaMigration {
  up(db: Kysely<any>, dialect: SchemaDialect): Promise<void>;
}

/**
 * Every migration, by name; names sort by date, which is the order they run in. One list for both engines: the
 * names are those kysely's `kysely_migration` table records on SQLite files since the first release.
 */
const migrations: Record<string, SchemaMigration> = {
  '2026-11-22-01-foundation': foundation,
  '2026-11-23-01-point-in-time': pointInTime,
  '2026-11-23-02-access-token-hashes': accessTokenHashes,
  '2026-11-26-01-audit-sessions': auditSessions,
  '2026-11-27-01-key-version': keyVersion,
  '2026-11-28-01-audit-session-indexes': auditSessionIndexes,
};

/**
 * Brings the schema `db` reaches up to date with kysely's Migrator, in `dialect`'s words. An error `faultOf` names
 * as the engine's fault (a full or read-only disk) is thrown as that fault; otherwise a failed migration is named,
 * and an error outside any migration (the database cannot be reached) is thrown as it came.
 */
export async function migrateSchema(db: Kysely<any>, dialect: SchemaDialect, faultOf: (error: unknown) => Error | undefined): Promise<void> {
  const forDialect = Object.fromEntries(Object.entries(migrations).map(([name, m]): [string, Migration] => [name, { up: (on) => m.up(on, dialect) }]));
  const { error, results } = await new kysely.Migrator({ db, provider: { getMigrations: async () => forDialect } }).migrateToLatest();
  if (error === undefined) return;
  const failed = results?.find((r) => r.status === 'Error')?.migrationName;
  throw faultOf(error) ?? (failed ? new Error(`migration ${failed} failed: ${(error as Error).message ?? String(error)}`, { cause: error }) : error);
}
