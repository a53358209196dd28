import type { Expression } from 'kysely';
import { sql } from '../kysely.ts';

/** Which engine's words a migration writes where the engines differ. */
export type SchemaDialect = 'sqlite' | 'postgres';

/**
 * The column types the migrations' tables have, spelt for `dialect`. Numbers are 64-bit: SQLite's `integer` is
 * (and `integer primary key` is the table's row id), PostgreSQL's is 32-bit. Text that is ordered or unique is
 * compared byte by byte, as SQLite compares it: `COLLATE "C"` on PostgreSQL.
 */
export function columnTypes(dialect: SchemaDialect): { int64: 'integer' | 'bigint'; orderedText: 'text' | Expression<unknown> } {
  return dialect === 'postgres' ? { int64: 'bigint', orderedText: sql`text collate "C"` } : { int64: 'integer', orderedText: 'text' };
}
