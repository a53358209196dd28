import type { Kysely } from 'kysely';
import type { SchemaDialect } from './column-types.ts';

// Migrations never import application code: they describe tables as they were on their date.
export async function up(db: Kysely<any>, _dialect: SchemaDialect): Promise<void> {
  // The sweep of ended sessions (past their end, or idle) when a session starts, under the write lock: each side
  // of its OR an index range, not a scan of every session.
  await db.schema.createIndex('audit_sessions_ends_at').on('audit_sessions').column('ends_at').execute();
  await db.schema.createIndex('audit_sessions_last_seen_at').on('audit_sessions').column('last_seen_at').execute();
  // A key's live sessions, oldest first: the ones past the cap per key end.
  await db.schema.createIndex('audit_sessions_key_created').on('audit_sessions').columns(['key_id', 'created_at']).execute();
}
