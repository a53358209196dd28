import path from 'node:path';
import { createHash } from 'node:crypto';
import { expect, test } from 'vitest';
import { kysely } from '../../../src/storage/kysely.ts';
import * as foundation from '../../../src/storage/migrations/2026-11-22-01-foundation.ts';
import * as pointInTime from '../../../src/storage/migrations/2026-11-23-01-point-in-time.ts';
import { kyselyOf, migrate } from '../../../src/storage/sqlite/migrate.ts';
import { type Sqlite, openSqlite } from '../../../src/storage/sqlite/open.ts';
import { manualClock, openSqliteCompany, tempDir } from '../../helpers.ts';
import { OLD_CLOCK_START, SQLITE_SCHEMA, expectServedAsBefore, insertsOf, oldRows } from '../e770409-schema.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

test('access tokens stored in clear before the token-hash migration are replaced by their hashes, and still honoured', async () => {
  const file = path.join(tempDir(), 'old.db');
  const clock = manualClock();
  // A database as the migrations before token hashing left it, holding a fresh token and a spent one.
  const old = openSqlite(file);
  const migrator = new kysely.Migrator({
    db: kyselyOf(old),
    provider: {
      getMigrations: async () => ({
        '2026-11-22-01-foundation': { up: (db) => foundation.up(db, 'sqlite') },
        '2026-11-23-01-point-in-time': { up: (db) => pointInTime.up(db, 'sqlite') },
      }),
    },
  });
  expect((await migrator.migrateToLatest()).error).toBeUndefined();
  const insert = old.prepare('INSERT INTO access_tokens (token, key_id, path, expires_at, body_hash, response) VALUES (?, 1, ?, ?, ?, ?)');
  const fresh = 'fresh-token-fresh-token-fresh-tok';
  const spent = 'spent-token-spent-token-spent-tok';
  insert.run(fresh, '/api/add-product-brand', clock() + 30_000, null, null);
  insert.run(spent, '/api/add-product-brand', clock() + 30_000, 'body-hash', '{"data":[{"id":1,"name":"A"}]}');
  old.close();

  const tb = await openSqliteCompany(file, { clock });
  try {
    const rows = tb.db.prepare('SELECT * FROM access_tokens ORDER BY token_hash').all() as Record<string, unknown>[];
    expect(rows.map((r) => r.token_hash).sort()).toEqual([sha256(fresh), sha256(spent)].sort());
    expect(JSON.stringify(rows)).not.toContain(fresh);
    expect(JSON.stringify(rows)).not.toContain(spent);
    expect(await tb.tokens.check(fresh, 1, '/api/add-product-brand', 'any')).toEqual({ status: 'fresh' });
    expect(await tb.tokens.check(spent, 1, '/api/add-product-brand', 'body-hash')).toEqual({ status: 'replay', response: '{"data":[{"id":1,"name":"A"}]}' });
    expect(await tb.tokens.check(spent, 1, '/api/add-product-brand', 'another-body')).toEqual({ status: 'refused' });
  } finally {
    tb.close();
  }
});

test('a file the releases before migrated opens as it was: no migration runs again, its schema is a new file’s, and its rows serve as before', async () => {
  const dir = tempDir();
  const schemaOf = (db: Sqlite) => db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').all();
  const fresh = openSqlite(path.join(dir, 'fresh.db'));
  await migrate(kyselyOf(fresh));
  const freshSchema = schemaOf(fresh);
  fresh.close();

  const file = path.join(dir, 'old.db');
  const old = openSqlite(file);
  for (const statement of SQLITE_SCHEMA) old.exec(statement);
  for (const [text, params] of insertsOf(oldRows(), () => '?')) old.prepare(text).run(params);
  const bookkeeping = () => old.prepare('SELECT * FROM kysely_migration ORDER BY name').all();
  const recorded = bookkeeping();
  await migrate(kyselyOf(old));
  expect(bookkeeping().slice(0, recorded.length)).toEqual(recorded);
  // Only the migrations of later releases run.
  expect(bookkeeping().slice(recorded.length).map((row) => (row as { name: string }).name)).toEqual(['2026-11-27-01-key-version', '2026-11-28-01-audit-session-indexes']);
  expect(schemaOf(old)).toEqual(freshSchema);
  old.close();

  const tb = await openSqliteCompany(file, { clock: manualClock(OLD_CLOCK_START) });
  try {
    await expectServedAsBefore(tb, async (table) => tb.db.prepare(`SELECT * FROM ${table} ORDER BY 1`).all());
  } finally {
    tb.close();
  }
});
