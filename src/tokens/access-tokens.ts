import { nanoid } from 'nanoid';
import type { Clock } from '../lib/clock.ts';
import type { StoredToken, TokenStore } from '../storage/port.ts';
import { hashSecret } from './api-keys.ts';

export const TOKEN_LIFE_MS = 60_000;

export type TokenCheck =
  | { status: 'fresh' }
  | { status: 'replay'; response: string }
  | { status: 'refused' };

/** What a body may do with a token whose row was read (undefined: not usable). */
export function tokenCheck(row: StoredToken | undefined, bodyHash: string): TokenCheck {
  if (!row) return { status: 'refused' };
  if (row.bodyHash === null) return { status: 'fresh' };
  return row.bodyHash === bodyHash ? { status: 'replay', response: row.response! } : { status: 'refused' };
}

/**
 * One-minute write tokens, bound to the key that asked and to the write path. They live in the database,
 * so a restarted server or a second process honours them. A token is spent by the first POST that passes
 * validation; its answer is kept so the same body sent again gets the same answer and applies nothing.
 * A token is a credential for its minute: the table holds only its SHA-256 hash, and every method takes the
 * token itself and hashes it.
 */
export class AccessTokens {
  constructor(
    private readonly store: TokenStore,
    private readonly clock: Clock,
  ) {}

  /** How many tokens are kept (unexpired ones, and expired ones not swept yet). */
  count(): Promise<number> {
    return this.store.count();
  }

  /** Issues a token; run as a unit of the writer, it shares the commit of the writes around it (`issueToken`). */
  async issue(keyId: number, path: string): Promise<{ token: string; expiresAt: number }> {
    const now = this.clock();
    const token = nanoid(32);
    const expiresAt = now + TOKEN_LIFE_MS;
    // Expired tokens can never be honoured again: sweeping them as new ones are issued bounds the table.
    await this.store.insert(hashSecret(token), { keyId, path, expiresAt }, now);
    return { token, expiresAt };
  }

  /** What a POST with this token and body may do. Call again inside the write transaction before spending. */
  async check(token: string, keyId: number, path: string, bodyHash: string): Promise<TokenCheck> {
    return tokenCheck(await this.usableRow(token, keyId, path), bodyHash);
  }

  /**
   * The token's row when a POST with it may be honoured at all, whatever its body: the token is known, alive and
   * this key's for this path (fresh or spent); undefined when not. What the header alone decides, before the body
   * is read; `tokenCheck` then decides the body against it.
   */
  async usableRow(token: string, keyId: number, path: string): Promise<StoredToken | undefined> {
    const row = await this.store.byHash(hashSecret(token));
    return row && row.keyId === keyId && row.path === path && row.expiresAt > this.clock() ? row : undefined;
  }

  /** Marks the token spent with the answer given; false when another request spent it first. */
  spend(token: string, bodyHash: string, response: string): Promise<boolean> {
    return this.store.spend(hashSecret(token), bodyHash, response);
  }
}
