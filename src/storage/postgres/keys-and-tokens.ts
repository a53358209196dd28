import type { KeyStore, SessionStore, StoredKey, StoredSession, StoredToken, TokenStore } from '../port.ts';
import type { Sql } from './connection.ts';
import { KEY_CHANGES_CHANNEL } from './key-changes.ts';
import type { PostgresWriter } from './writer.ts';

const KEY = 'id, name, scope, key_hash AS "keyHash", created_at AS created, expires_at AS expires, revoked_at AS revoked';

/**
 * The API keys on PostgreSQL, shared by every server of the database. Writes run on the writer's session inside
 * the calling unit, so they commit with its group under the chain head's lock; reads outside a unit go to the
 * pool and see what any server committed, read afresh on every call.
 */
export class PostgresKeyStore implements KeyStore {
  constructor(
    private readonly writer: PostgresWriter,
    private readonly pool: Sql,
  ) {}

  async insert(key: Omit<StoredKey, 'id' | 'revoked'>): Promise<number> {
    // No sequence: the next id after the highest, decided under the lock (as SQLite's rowid, so both engines number
    // keys alike); a rolled-back insert leaves no hole.
    const [{ id }] = await this.writer.writesFor('a new key').sql<{ id: number }>(
      `INSERT INTO api_keys (id, name, scope, key_hash, created_at, expires_at)
       SELECT coalesce(max(id), 0) + 1, $1::text, $2::text, $3::text, $4::text, $5::text FROM api_keys RETURNING id`,
      [key.name, key.scope, key.keyHash, key.created, key.expires],
    );
    return id;
  }

  async byHash(keyHash: string): Promise<StoredKey | undefined> {
    const [row] = await this.writer.readsOn(this.pool).sql<StoredKey>(`SELECT ${KEY} FROM api_keys WHERE key_hash = $1`, [keyHash]);
    return row;
  }

  async byId(id: number): Promise<StoredKey | undefined> {
    const [row] = await this.writer.readsOn(this.pool).sql<StoredKey>(`SELECT ${KEY} FROM api_keys WHERE id = $1`, [id]);
    return row;
  }

  list(): Promise<Omit<StoredKey, 'keyHash'>[]> {
    return this.writer.readsOn(this.pool).sql('SELECT id, name, scope, created_at AS created, expires_at AS expires, revoked_at AS revoked FROM api_keys ORDER BY id');
  }

  /** Announced to every server listening (`PostgresKeyChanges`) when the transaction commits, and only then. */
  async revoke(id: number, at: string): Promise<boolean> {
    const session = this.writer.writesFor('a revocation');
    const rows = await session.sql('UPDATE api_keys SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2 RETURNING id', [at, id]);
    if (rows.length === 1) await session.run('SELECT pg_notify($1, $2)', [KEY_CHANGES_CHANNEL, String(id)]);
    return rows.length === 1;
  }

  async count(): Promise<number> {
    const [{ count }] = await this.writer.readsOn(this.pool).sql<{ count: number }>('SELECT count(*) AS count FROM api_keys');
    return count;
  }
}

/** Every key with its hash, by id, in one query on `db` (a copy's snapshot): what a copy takes of them. */
export function storedKeys(db: Sql): Promise<StoredKey[]> {
  return db.sql<StoredKey>(`SELECT ${KEY} FROM api_keys ORDER BY id`);
}

/**
 * The access tokens on PostgreSQL, as `PostgresKeyStore`: issued and spent inside a unit; the check that decides
 * is the one made inside the unit (on the session, under the lock), the early check before the body is read goes
 * to the pool.
 */
export class PostgresTokenStore implements TokenStore {
  constructor(
    private readonly writer: PostgresWriter,
    private readonly pool: Sql,
  ) {}

  async insert(tokenHash: string, token: Pick<StoredToken, 'keyId' | 'path' | 'expiresAt'>, now: number): Promise<void> {
    // One round trip while the lock is held: the sweep rides along with the insert.
    await this.writer.writesFor('a new token').run(
      `WITH swept AS (DELETE FROM access_tokens WHERE expires_at < $5)
       INSERT INTO access_tokens (token_hash, key_id, path, expires_at) VALUES ($1, $2, $3, $4)`,
      [tokenHash, token.keyId, token.path, token.expiresAt, now],
    );
  }

  async byHash(tokenHash: string): Promise<StoredToken | undefined> {
    const [row] = await this.writer
      .readsOn(this.pool)
      .sql<StoredToken>('SELECT key_id AS "keyId", path, expires_at AS "expiresAt", body_hash AS "bodyHash", response FROM access_tokens WHERE token_hash = $1', [tokenHash]);
    return row;
  }

  async spend(tokenHash: string, bodyHash: string, response: string): Promise<boolean> {
    const rows = await this.writer
      .writesFor('spending a token')
      .sql('UPDATE access_tokens SET body_hash = $1, response = $2 WHERE token_hash = $3 AND body_hash IS NULL RETURNING token_hash', [bodyHash, response, tokenHash]);
    return rows.length === 1;
  }

  async count(): Promise<number> {
    const [{ count }] = await this.writer.readsOn(this.pool).sql<{ count: number }>('SELECT count(*) AS count FROM access_tokens');
    return count;
  }
}

/** The workbench's sessions on PostgreSQL, as `PostgresTokenStore`: shared by every server of the database. */
export class PostgresSessionStore implements SessionStore {
  constructor(
    private readonly writer: PostgresWriter,
    private readonly pool: Sql,
  ) {}

  async insert(idHash: string, session: StoredSession, now: number, idleSince: number): Promise<void> {
    await this.writer.writesFor('a new session').run(
      `WITH swept AS (DELETE FROM audit_sessions WHERE ends_at <= $6 OR last_seen_at < $7)
       INSERT INTO audit_sessions (id_hash, key_id, created_at, last_seen_at, ends_at) VALUES ($1, $2, $3, $4, $5)`,
      [idHash, session.keyId, session.created, session.lastSeen, session.ends, now, idleSince],
    );
  }

  async byHash(idHash: string): Promise<StoredSession | undefined> {
    const [row] = await this.writer
      .readsOn(this.pool)
      .sql<StoredSession>('SELECT key_id AS "keyId", created_at AS created, last_seen_at AS "lastSeen", ends_at AS ends FROM audit_sessions WHERE id_hash = $1', [idHash]);
    return row;
  }

  async touch(idHash: string, at: number): Promise<void> {
    await this.writer.writesFor('a session seen').run('UPDATE audit_sessions SET last_seen_at = $1 WHERE id_hash = $2', [at, idHash]);
  }

  async delete(idHash: string): Promise<void> {
    await this.writer.writesFor('a session ended').run('DELETE FROM audit_sessions WHERE id_hash = $1', [idHash]);
  }

  async count(): Promise<number> {
    const [{ count }] = await this.writer.readsOn(this.pool).sql<{ count: number }>('SELECT count(*) AS count FROM audit_sessions');
    return count;
  }
}
