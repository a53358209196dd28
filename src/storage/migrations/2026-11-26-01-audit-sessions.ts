import type { Kysely } from 'kysely';
import type { SchemaDialect } from './column-types.ts';
import { columnTypes } from './column-types.ts';

// Migrations never import application code: they describe tables as they were on their date.
export async function up(db: Kysely<any>, dialect: SchemaDialect): Promise<void> {
  const { int64, orderedText } = columnTypes(dialect);
  // The workbench's sign-in sessions: only a hash of the session's id is stored; times are in ms.
  await db.schema
    .createTable('audit_sessions')
    .addColumn('id_hash', orderedText, (c) => c.primaryKey())
    .addColumn('key_id', int64, (c) => c.notNull())
    .addColumn('created_at', int64, (c) => c.notNull())
    .addColumn('last_seen_at', int64, (c) => c.notNull())
    .addColumn('ends_at', int64, (c) => c.notNull())
    .execute();
}
