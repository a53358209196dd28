import type { Kysely } from 'kysely';

// Migrations never import application code: they describe tables as they were on their date.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The workbench's sign-in sessions: only a hash of the session's id is stored; times are in ms.
  await db.schema
    .createTable('audit_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('key_id', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('last_seen_at', 'integer', (c) => c.notNull())
    .addColumn('ends_at', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_sessions').execute();
}
