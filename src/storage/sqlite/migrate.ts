import type { Kysely } from 'kysely';
import { kysely } from '../kysely.ts';
import { migrateSchema } from '../migrate.ts';
import type { Database } from '../schema.ts';
import type { Sqlite } from './open.ts';
import { storageFaultOf } from '../storage-fault.ts';

export function kyselyOf(sqlite: Sqlite): Kysely<Database> {
  return new kysely.Kysely<Database>({ dialect: new kysely.SqliteDialect({ database: sqlite }) });
}

/** Brings the file's schema up to date; a full or read-only disk is named as such, not as a broken migration. */
export async function migrate(db: Kysely<Database>): Promise<void> {
  await migrateSchema(db, 'sqlite', storageFaultOf);
}
