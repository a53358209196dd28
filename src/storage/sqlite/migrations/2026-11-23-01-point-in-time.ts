import type { Kysely } from 'kysely';

// Migrations never import application code: they describe tables as they were on their date.
export async function up(db: Kysely<unknown>): Promise<void> {
  // One row in a database written by `rebuild --until … --into …`: the log there ends at `until_seq` and is read-only.
  await db.schema
    .createTable('point_in_time')
    .addColumn('until_seq', 'integer', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('point_in_time').execute();
}
