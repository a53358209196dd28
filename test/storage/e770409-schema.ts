import { expect } from 'vitest';
import type { Company } from '../../src/company.ts';
import { GENESIS_HASH } from '../../src/events/hash.ts';
import { eventRows } from '../../src/events/rows.ts';
import { createApp } from '../../src/http/app.ts';
import { hashSecret } from '../../src/tokens/api-keys.ts';
import { ApiClient } from '../helpers.ts';

/**
 * The schema as the releases up to e770409 left a database, with their migration bookkeeping: SQLite files as
 * kysely's Migrator migrated them (the statements as `sqlite_master` keeps them), PostgreSQL databases as the
 * runner of their own did (its statements verbatim, and its `schema_migrations` table). Tests build an old
 * database from these and open it with today's code.
 */

export const SQLITE_SCHEMA = [
  'CREATE TABLE "kysely_migration" ("name" varchar(255) not null primary key, "timestamp" varchar(255) not null)',
  'CREATE TABLE "kysely_migration_lock" ("id" varchar(255) not null primary key, "is_locked" integer default 0 not null)',
  `INSERT INTO kysely_migration_lock VALUES ('migration_lock', 0)`,
  `INSERT INTO kysely_migration VALUES ('2026-11-22-01-foundation', '2026-11-22T08:00:00.001Z'), ('2026-11-23-01-point-in-time', '2026-11-23T08:00:00.001Z'),
     ('2026-11-23-02-access-token-hashes', '2026-11-23T08:00:00.002Z'), ('2026-11-26-01-audit-sessions', '2026-11-26T08:00:00.001Z')`,
  'CREATE TABLE "events" ("seq" integer primary key, "stream" text not null, "stream_version" integer not null, "type" text not null, "schema_version" integer not null, "data" text not null, "meta" text not null, "recorded_at" text not null, "hash" text not null, constraint "events_stream_version" unique ("stream", "stream_version"))',
  'CREATE INDEX "events_type" on "events" ("type", "seq")',
  'CREATE INDEX "events_recorded_at" on "events" ("recorded_at")',
  `CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END`,
  `CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END`,
  'CREATE TABLE "api_keys" ("id" integer primary key, "name" text not null, "scope" text not null, "key_hash" text not null unique, "created_at" text not null, "expires_at" text, "revoked_at" text)',
  'CREATE TABLE "access_tokens" ("token_hash" text primary key, "key_id" integer not null, "path" text not null, "expires_at" integer not null, "body_hash" text, "response" text)',
  'CREATE INDEX "access_tokens_expires" on "access_tokens" ("expires_at")',
  'CREATE TABLE "projection_checkpoints" ("name" text primary key, "version" integer not null, "last_seq" integer not null)',
  'CREATE TABLE "point_in_time" ("until_seq" integer not null, "source" text not null, "created_at" text not null)',
  'CREATE TABLE "audit_sessions" ("id_hash" text primary key, "key_id" integer not null, "created_at" integer not null, "last_seen_at" integer not null, "ends_at" integer not null)',
];

export const POSTGRES_SCHEMA = [
  'CREATE TABLE schema_migrations (name text COLLATE "C" PRIMARY KEY, applied_at text NOT NULL)',
  `INSERT INTO schema_migrations VALUES ('2026-11-25-01-foundation', '2026-11-25T08:00:00.001Z'), ('2026-11-26-01-audit-sessions', '2026-11-26T08:00:00.001Z')`,
  `CREATE TABLE events (
     seq bigint PRIMARY KEY,
     stream text COLLATE "C" NOT NULL,
     stream_version bigint NOT NULL,
     type text COLLATE "C" NOT NULL,
     schema_version integer NOT NULL,
     data text NOT NULL,
     meta text NOT NULL,
     recorded_at text COLLATE "C" NOT NULL,
     hash text NOT NULL,
     CONSTRAINT events_stream_version UNIQUE (stream, stream_version)
   )`,
  'CREATE INDEX events_type ON events (type, seq)',
  'CREATE INDEX events_recorded_at ON events (recorded_at)',
  `CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     RAISE EXCEPTION 'events are append-only';
   END $$`,
  'CREATE TRIGGER events_no_update_or_delete BEFORE UPDATE OR DELETE ON events FOR EACH ROW EXECUTE FUNCTION events_append_only()',
  'CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()',
  `CREATE TABLE chain_head (
     id integer PRIMARY KEY CHECK (id = 1),
     seq bigint NOT NULL,
     hash text NOT NULL,
     projectors text
   )`,
  `INSERT INTO chain_head (id, seq, hash) VALUES (1, 0, repeat('0', 64))`,
  `CREATE TABLE api_keys (
     id bigint PRIMARY KEY,
     name text NOT NULL,
     scope text NOT NULL,
     key_hash text COLLATE "C" NOT NULL UNIQUE,
     created_at text NOT NULL,
     expires_at text,
     revoked_at text
   )`,
  `CREATE TABLE access_tokens (
     token_hash text COLLATE "C" PRIMARY KEY,
     key_id bigint NOT NULL,
     path text NOT NULL,
     expires_at bigint NOT NULL,
     body_hash text,
     response text
   )`,
  'CREATE INDEX access_tokens_expires ON access_tokens (expires_at)',
  `CREATE TABLE projection_checkpoints (
     name text COLLATE "C" PRIMARY KEY,
     version bigint NOT NULL,
     last_seq bigint NOT NULL
   )`,
  `CREATE TABLE point_in_time (
     until_seq bigint NOT NULL,
     source text NOT NULL,
     created_at text NOT NULL
   )`,
  `CREATE TABLE audit_sessions (
     id_hash text COLLATE "C" PRIMARY KEY,
     key_id bigint NOT NULL,
     created_at bigint NOT NULL,
     last_seen_at bigint NOT NULL,
     ends_at bigint NOT NULL
   )`,
];

export const OLD_KEY = 'tb_old0key0old0key0old0key0old0key0old0key';

/** A company's rows in such a database: one key, one event of it, a spent access token and a workbench session. */
export function oldRows(): Record<string, Record<string, unknown>[]> {
  const { rows: events } = eventRows([{ stream: 'brand-1', type: 'BrandAdded', data: { id: 1, name: 'Old brand', logo: null } }], { keyId: 1, source: 'api' }, { seq: 0, hash: GENESIS_HASH }, new Map(), '2026-11-25T09:00:00.000Z');
  return {
    events: events.map((row) => ({ ...row })),
    api_keys: [{ id: 1, name: 'old', scope: 'api', key_hash: hashSecret(OLD_KEY), created_at: '2026-11-25T08:59:00.000Z', expires_at: null, revoked_at: null }],
    access_tokens: [{ token_hash: hashSecret('old-token'), key_id: 1, path: '/api/add-product-brand', expires_at: Date.parse('2026-11-25T09:01:00Z'), body_hash: 'body-hash', response: '{"data":[{"id":1,"name":"Old brand"}]}' }],
    audit_sessions: [{ id_hash: hashSecret('old-session'), key_id: 1, created_at: Date.parse('2026-11-25T09:00:00Z'), last_seen_at: Date.parse('2026-11-25T09:00:00Z'), ends_at: Date.parse('2026-11-25T17:00:00Z') }],
  };
}

/** `INSERT` statements with `?` (SQLite) or `$n` (PostgreSQL) placeholders for `oldRows()`. */
export function insertsOf(rows: Record<string, Record<string, unknown>[]>, placeholder: (n: number) => string): [string, unknown[]][] {
  return Object.entries(rows).flatMap(([table, list]) =>
    list.map((row): [string, unknown[]] => [`INSERT INTO ${table} (${Object.keys(row).join(', ')}) VALUES (${Object.keys(row).map((_, i) => placeholder(i + 1)).join(', ')})`, Object.values(row)]),
  );
}

/** The company opened on such a database holds the rows as they were, and its key, log and token serve as before. */
export async function expectServedAsBefore(company: Company, rowsOf: (table: string) => Promise<unknown[]>): Promise<void> {
  for (const [table, rows] of Object.entries(oldRows())) expect(await rowsOf(table), table).toEqual(rows);
  expect(await company.tokens.check('old-token', 1, '/api/add-product-brand', 'body-hash')).toEqual({ status: 'replay', response: '{"data":[{"id":1,"name":"Old brand"}]}' });
  const api = new ApiClient(createApp(company), OLD_KEY);
  expect((await api.get('/api/product-brands')).body.data).toEqual([{ id: 1, name: 'Old brand', logo: null }]);
  expect((await api.write('/api/add-product-brand', 'brand', [{ name: 'New brand' }])).body).toEqual({ data: [{ id: 2, name: 'New brand' }] });
  expect((await rowsOf('events')).map((row) => (row as { seq: number }).seq)).toEqual([1, 2]);
  // Its key revokes, bumping the key version a later migration added.
  expect(await company.keys.revoke(1)).toBe(true);
  expect((await api.get('/api/product-brands')).status).toBe(401);
  expect(await rowsOf('key_version')).toEqual([{ id: 1, version: 1 }]);
}

/** Before the old access token expires. */
export const OLD_CLOCK_START = Date.parse('2026-11-25T09:00:30Z');
