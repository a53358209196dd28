import path from 'node:path';
import { expect, test } from 'vitest';
import { SESSIONS_PAST_CAP, SESSION_SWEEP } from '../../../src/storage/keys-and-tokens.ts';
import { openSqlite } from '../../../src/storage/sqlite/open.ts';
import { kyselyOf, migrate } from '../../../src/storage/sqlite/migrate.ts';
import { tempDir } from '../../helpers.ts';

test('the sweep of ended sessions and the cap per key read indexes, never every session', async () => {
  const db = openSqlite(path.join(tempDir(), 'sessions.db'));
  try {
    await migrate(kyselyOf(db));
    const plan = (text: string, params: unknown[]) => (db.prepare(`EXPLAIN QUERY PLAN ${text}`).all(params) as { detail: string }[]).map((row) => row.detail);
    const sweep = plan(SESSION_SWEEP, [1, 1]);
    expect(sweep.join('\n')).toMatch(/audit_sessions_ends_at/);
    expect(sweep.join('\n')).toMatch(/audit_sessions_last_seen_at/);
    const cap = plan(SESSIONS_PAST_CAP, [1, 1, 19]);
    expect(cap.filter((detail) => /audit_sessions/.test(detail)).every((detail) => /USING (COVERING )?INDEX audit_sessions_key_created|PRIMARY KEY/.test(detail))).toBe(true);
    for (const detail of [...sweep, ...cap]) expect(detail).not.toMatch(/^SCAN audit_sessions$/);
  } finally {
    db.close();
  }
});
