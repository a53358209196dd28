import type { Kysely } from 'kysely';
import type { SchemaDialect } from './column-types.ts';
import { columnTypes } from './column-types.ts';

// Migrations never import application code: they describe tables as they were on their date.
export async function up(db: Kysely<any>, dialect: SchemaDialect): Promise<void> {
  // One row in a database written by `rebuild --until … --into …`: the log there ends at `until_seq` and is read-only.
  await db.schema
    .createTable('point_in_time')
    .addColumn('until_seq', columnTypes(dialect).int64, (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
