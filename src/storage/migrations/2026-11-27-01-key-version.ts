import type { Kysely } from 'kysely';
import { sql } from '../kysely.ts';
import type { SchemaDialect } from './column-types.ts';
import { columnTypes } from './column-types.ts';

// Migrations never import application code: they describe tables as they were on their date.
export async function up(db: Kysely<any>, dialect: SchemaDialect): Promise<void> {
  const { int64 } = columnTypes(dialect);
  // One row, bumped in the transaction of every key change other processes' key caches must hear of: SQLite's
  // servers poll it. The first change makes the row, so this migration is a single statement.
  await db.schema
    .createTable('key_version')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('version', int64, (c) => c.notNull())
    .execute();
}
