import type { Kysely } from 'kysely';
import { sql } from '../kysely.ts';
import type { SchemaDialect } from './column-types.ts';
import { columnTypes } from './column-types.ts';

// Migrations never import application code: they describe tables as they were on their date.
// JSON is kept as text on both engines (jsonb would reorder keys and break byte equality), and no column takes its
// value from a sequence: a rolled-back insert would burn one, and seq must stay dense.
export async function up(db: Kysely<any>, dialect: SchemaDialect): Promise<void> {
  const { int64, orderedText } = columnTypes(dialect);
  await db.schema
    .createTable('events')
    .addColumn('seq', int64, (c) => c.primaryKey())
    .addColumn('stream', orderedText, (c) => c.notNull())
    .addColumn('stream_version', int64, (c) => c.notNull())
    .addColumn('type', orderedText, (c) => c.notNull())
    .addColumn('schema_version', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('meta', 'text', (c) => c.notNull())
    .addColumn('recorded_at', orderedText, (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addUniqueConstraint('events_stream_version', ['stream', 'stream_version'])
    .execute();
  await db.schema.createIndex('events_type').on('events').columns(['type', 'seq']).execute();
  await db.schema.createIndex('events_recorded_at').on('events').column('recorded_at').execute();
  // The log is append-only at the database level, whoever connects.
  if (dialect === 'sqlite') {
    await sql`CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END`.execute(db);
    await sql`CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END`.execute(db);
  } else {
    // Row triggers do not see TRUNCATE: a statement trigger refuses it.
    await sql`CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'events are append-only'; END $$`.execute(db);
    await sql`CREATE TRIGGER events_no_update_or_delete BEFORE UPDATE OR DELETE ON events FOR EACH ROW EXECUTE FUNCTION events_append_only()`.execute(db);
    await sql`CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()`.execute(db);
    // One row whose lock every writer takes first and holds to its commit: the cluster-wide write lock (SQLite's
    // is the file's). It also keeps the log's last seq and hash, and the fingerprint of the projector versions the
    // read tables have (null until a server sets it).
    await db.schema
      .createTable('chain_head')
      .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
      .addColumn('seq', 'bigint', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .addColumn('projectors', 'text')
      .execute();
    await db.insertInto('chain_head').values({ id: 1, seq: 0, hash: sql`repeat('0', 64)` }).execute();
  }

  await db.schema
    .createTable('api_keys')
    .addColumn('id', int64, (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key_hash', orderedText, (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();

  // PostgreSQL came after tokens were hashed (the next migration, on SQLite): its column has the hash's name from
  // the start, so its constraints are named for it too.
  await db.schema
    .createTable('access_tokens')
    .addColumn(dialect === 'postgres' ? 'token_hash' : 'token', orderedText, (c) => c.primaryKey())
    .addColumn('key_id', int64, (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('expires_at', int64, (c) => c.notNull())
    .addColumn('body_hash', 'text')
    .addColumn('response', 'text')
    .execute();
  await db.schema.createIndex('access_tokens_expires').on('access_tokens').column('expires_at').execute();

  await db.schema
    .createTable('projection_checkpoints')
    .addColumn('name', orderedText, (c) => c.primaryKey())
    .addColumn('version', int64, (c) => c.notNull())
    .addColumn('last_seq', int64, (c) => c.notNull())
    .execute();
}
