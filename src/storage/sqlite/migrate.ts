import type { Kysely, Migration } from 'kysely';
import { kysely } from './kysely.ts';
import * as foundation from './migrations/2026-11-22-01-foundation.ts';
import * as pointInTime from './migrations/2026-11-23-01-point-in-time.ts';
import * as accessTokenHashes from './migrations/2026-11-23-02-access-token-hashes.ts';
import * as auditSessions from './migrations/2026-11-26-01-audit-sessions.ts';
import type { Sqlite } from './open.ts';
import { storageFaultOf } from './storage-fault.ts';
import type { DB } from './schema.ts';

/** Every migration, by name; names sort by date, which is the order they run in. */
const migrations: Record<string, Migration> = {
  '2026-11-22-01-foundation': foundation,
  '2026-11-23-01-point-in-time': pointInTime,
  '2026-11-23-02-access-token-hashes': accessTokenHashes,
  '2026-11-26-01-audit-sessions': auditSessions,
};

export function kyselyOf(sqlite: Sqlite): Kysely<DB> {
  return new kysely.Kysely<DB>({ dialect: new kysely.SqliteDialect({ database: sqlite }) });
}

/** Brings the schema up to date; throws with the failing migration's name if one fails. */
export async function migrate(db: Kysely<DB>): Promise<void> {
  const migrator = new kysely.Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    // A full or read-only disk is named as such, not as a broken migration.
    throw storageFaultOf(error) ?? new Error(`migration ${failed} failed: ${String(error)}`);
  }
}
