import type { Kysely } from 'kysely';
import type { SchemaDialect } from './column-types.ts';
import { columnTypes } from './column-types.ts';

// Migrations never import application code: they describe tables as they were on their date.
export async function up(db: Kysely<any>, dialect: SchemaDialect): Promise<void> {
  const { int64 } = columnTypes(dialect);
  // The webhooks the servers deliver the log's changes to: each one's position in the log (the last seq its
  // receiver acknowledged), its failures, and its lease (which server delivers it, until when). Times in ms.
  await db.schema
    .createTable('webhooks')
    .addColumn('id', int64, (c) => c.primaryKey())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('types', 'text')
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('position', int64, (c) => c.notNull())
    .addColumn('paused', 'text')
    .addColumn('last_error', 'text')
    .addColumn('failing_since', int64)
    .addColumn('attempts', int64, (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', int64, (c) => c.notNull().defaultTo(0))
    .addColumn('delivered_at', int64)
    .addColumn('created_at', int64, (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', int64)
    .execute();
}
