import { nanoid } from 'nanoid';
import type { Sqlite } from '../storage/sqlite/open.ts';
import type { Clock } from '../lib/clock.ts';
import { hashSecret } from './api-keys.ts';

export const TOKEN_LIFE_MS = 60_000;

export type TokenCheck =
  | { status: 'fresh' }
  | { status: 'replay'; response: string }
  | { status: 'refused' };

interface TokenRow {
  key_id: number;
  path: string;
  expires_at: number;
  body_hash: string | null;
  response: string | null;
}

/**
 * One-minute write tokens, bound to the key that asked and to the write path. They live in the database,
 * so a restarted server or a second process honours them. A token is spent by the first POST that passes
 * validation; its answer is kept so the same body sent again gets the same answer and applies nothing.
 * A token is a credential for its minute: the table holds only its SHA-256 hash, and every method takes the
 * token itself and hashes it.
 */
export class AccessTokens {
  private readonly insert;
  private readonly sweep;
  private readonly get;
  private readonly spendStmt;
  private readonly store;
  private readonly stored;

  constructor(
    db: Sqlite,
    private readonly clock: Clock,
  ) {
    this.stored = db.prepare('SELECT count(*) FROM access_tokens').pluck();
    this.insert = db.prepare('INSERT INTO access_tokens (token_hash, key_id, path, expires_at) VALUES (?, ?, ?, ?)');
    this.sweep = db.prepare('DELETE FROM access_tokens WHERE expires_at < ?');
    this.get = db.prepare('SELECT key_id, path, expires_at, body_hash, response FROM access_tokens WHERE token_hash = ?');
    this.spendStmt = db.prepare('UPDATE access_tokens SET body_hash = ?, response = ? WHERE token_hash = ? AND body_hash IS NULL');
    // Expired tokens can never be honoured again: sweeping them as new ones are issued bounds the table.
    this.store = db.transaction((tokenHash: string, keyId: number, path: string, now: number, expiresAt: number) => {
      this.sweep.run(now);
      this.insert.run(tokenHash, keyId, path, expiresAt);
    });
  }

  /** How many tokens are kept (unexpired ones, and expired ones not swept yet). */
  async count(): Promise<number> {
    return this.stored.get() as number;
  }

  /** Issues a token; run as a unit of the writer, it shares the commit and the fsync of the writes around it. */
  async issue(keyId: number, path: string): Promise<{ token: string; expiresAt: number }> {
    const now = this.clock();
    const token = nanoid(32);
    const expiresAt = now + TOKEN_LIFE_MS;
    this.store(hashSecret(token), keyId, path, now, expiresAt);
    return { token, expiresAt };
  }

  /**
   * Whether a POST with this token may be honoured at all, whatever its body: the token is known, alive and
   * this key's for this path (fresh or spent). What the header alone decides, before the body is read.
   */
  async usable(token: string, keyId: number, path: string): Promise<boolean> {
    return this.usableRow(token, keyId, path) !== undefined;
  }

  /** What a POST with this token and body may do. Call again inside the write transaction before spending. */
  async check(token: string, keyId: number, path: string, bodyHash: string): Promise<TokenCheck> {
    const row = this.usableRow(token, keyId, path);
    if (!row) return { status: 'refused' };
    if (row.body_hash === null) return { status: 'fresh' };
    return row.body_hash === bodyHash ? { status: 'replay', response: row.response! } : { status: 'refused' };
  }

  private usableRow(token: string, keyId: number, path: string): TokenRow | undefined {
    const row = this.get.get(hashSecret(token)) as TokenRow | undefined;
    return row && row.key_id === keyId && row.path === path && row.expires_at > this.clock() ? row : undefined;
  }

  /** Marks the token spent with the answer given; false when another request spent it first. */
  async spend(token: string, bodyHash: string, response: string): Promise<boolean> {
    return this.spendStmt.run(bodyHash, response, hashSecret(token)).changes === 1;
  }
}
