import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Database } from '../../src/storage/schema.ts';
import { kyselyOn } from '../../src/storage/postgres/kysely.ts';
import { migrate as migratePostgres } from '../../src/storage/postgres/migrate.ts';
import { kyselyOf, migrate as migrateSqlite } from '../../src/storage/sqlite/migrate.ts';
import { openSqlite } from '../../src/storage/sqlite/open.ts';
import { tempDir } from '../helpers.ts';
import { describeEngines } from './postgres/engines.ts';

/** Every column of every table `Database` types: the compiler holds this to the interfaces, the tests to the tables. */
const COLUMNS: { [T in keyof Database]: Record<keyof Database[T], true> } = {
  events: { seq: true, stream: true, stream_version: true, type: true, schema_version: true, data: true, meta: true, recorded_at: true, hash: true },
  api_keys: { id: true, name: true, scope: true, key_hash: true, created_at: true, expires_at: true, revoked_at: true },
  access_tokens: { token_hash: true, key_id: true, path: true, expires_at: true, body_hash: true, response: true },
  audit_sessions: { id_hash: true, key_id: true, created_at: true, last_seen_at: true, ends_at: true },
  key_version: { id: true, version: true },
  webhooks: {
    id: true,
    url: true,
    types: true,
    secret: true,
    position: true,
    paused: true,
    last_error: true,
    failing_since: true,
    attempts: true,
    next_attempt_at: true,
    delivered_at: true,
    created_at: true,
    lease_owner: true,
    lease_until: true,
  },
  projection_checkpoints: { name: true, version: true, last_seq: true },
  point_in_time: { until_seq: true, source: true, created_at: true },
  chain_head: { id: true, seq: true, hash: true, projectors: true },
};

const columnsOf = (tables: { name: string; columns: { name: string }[] }[]) =>
  Object.fromEntries(tables.filter((t) => t.name in COLUMNS).map((t) => [t.name, t.columns.map((c) => c.name)]));
const expected = (only: (table: string) => boolean) => Object.fromEntries(Object.entries(COLUMNS).filter(([table]) => only(table)).map(([table, columns]) => [table, Object.keys(columns)]));

describe('the table interfaces', () => {
  test('name every column of the tables the migrations make on SQLite (chain_head is PostgreSQL’s alone)', async () => {
    const db = kyselyOf(openSqlite(path.join(tempDir(), 'schema.db')));
    await migrateSqlite(db);
    expect(columnsOf(await db.introspection.getTables())).toEqual(expected((table) => table !== 'chain_head'));
    // @ts-expect-error: a misspelt column is a type error
    db.selectFrom('events').select('sequence');
    await db.destroy();
  });
});

describeEngines('the table interfaces', (database) => {
  test('name every column of the tables the migrations make on PostgreSQL', async () => {
    await migratePostgres(database().session);
    const db = kyselyOn(database().session);
    expect(columnsOf(await db.introspection.getTables())).toEqual(expected(() => true));
    const [head] = await db.selectFrom('chain_head').select(['seq', 'hash']).execute();
    expect(head).toEqual({ seq: 0, hash: '0'.repeat(64) });
  });
});
