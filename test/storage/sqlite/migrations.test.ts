import path from 'node:path';
import { createHash } from 'node:crypto';
import { expect, test } from 'vitest';
import { kysely } from '../../../src/storage/sqlite/kysely.ts';
import { kyselyOf } from '../../../src/storage/sqlite/migrate.ts';
import * as foundation from '../../../src/storage/sqlite/migrations/2026-11-22-01-foundation.ts';
import * as pointInTime from '../../../src/storage/sqlite/migrations/2026-11-23-01-point-in-time.ts';
import { openSqlite } from '../../../src/storage/sqlite/open.ts';
import { manualClock, openSqliteCompany, tempDir } from '../../helpers.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

test('access tokens stored in clear before the token-hash migration are replaced by their hashes, and still honoured', async () => {
  const file = path.join(tempDir(), 'old.db');
  const clock = manualClock();
  // A database as the migrations before token hashing left it, holding a fresh token and a spent one.
  const old = openSqlite(file);
  const migrator = new kysely.Migrator({
    db: kyselyOf(old),
    provider: { getMigrations: async () => ({ '2026-11-22-01-foundation': foundation, '2026-11-23-01-point-in-time': pointInTime }) },
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
