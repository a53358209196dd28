import type { KeyStore, SessionStore, StoredKey, StoredSession, StoredToken, TokenStore } from './port.ts';
import type { SqlSession } from './sql.ts';

/**
 * The API keys, access tokens and workbench sessions tables, in SQL both engines accept. Columns are named with
 * quoted aliases: PostgreSQL folds an unquoted one to lower case.
 */

/**
 * Where the stores' statements go: `writes` inside the writer's unit (a write outside one is refused), `reads`
 * inside the unit when the caller runs in one (it decides on its group's work) and on committed work otherwise.
 */
export interface KeyTablesOn {
  writes: SqlSession;
  reads: SqlSession;
}

/** A key's columns as `StoredKey` names them, read from the table `from` (prefixed) when given. */
const keyColumns = (from = '') => {
  const at = (column: string) => (from === '' ? column : `${from}.${column}`);
  return `${at('id')}, ${at('name')}, ${at('scope')}, ${at('key_hash')} AS "keyHash", ${at('created_at')} AS created, ${at('expires_at')} AS expires, ${at('revoked_at')} AS revoked`;
};
const KEY = keyColumns();
// A workbench page checks its session and the session's key: one statement, one round trip on a server.
const SESSION_WITH_KEY = `SELECT s.key_id AS "keyId", s.created_at AS "sessionCreated", s.last_seen_at AS "lastSeen", s.ends_at AS ends, ${keyColumns('k')}
  FROM audit_sessions s LEFT JOIN api_keys k ON k.id = s.key_id WHERE s.id_hash = ?`;
/** A session's row with its key's columns, all null when the key is gone. */
type SessionWithKeyRow = Omit<StoredSession, 'created'> & { sessionCreated: number } & (StoredKey | { [column in keyof StoredKey]: null });
const KEY_BY_HASH = `SELECT ${KEY} FROM api_keys WHERE key_hash = ?`;
const KEY_BY_ID = `SELECT ${KEY} FROM api_keys WHERE id = ?`;

/** Bumps the key version (`key_version`), making its row the first time. */
const BUMP_KEY_VERSION = 'INSERT INTO key_version (id, version) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET version = key_version.version + 1';

/**
 * The API keys. A revocation, the one change a cached key can miss (a new key is never cached unknown), bumps the
 * key version in its own transaction, so a server that polls for changes (SQLite's, `SqliteKeyChanges`) sees it
 * whichever process made it; `announce` tells servers that listen instead (PostgreSQL's), in the same transaction.
 */
export class SqlKeyStore implements KeyStore {
  constructor(
    private readonly on: KeyTablesOn,
    private readonly announce: (id: number) => Promise<void> = async () => {},
  ) {}

  async insert(key: Omit<StoredKey, 'id' | 'revoked'>): Promise<number> {
    // No sequence: the next id after the highest, decided under the writer's lock (SQLite's rowid does the same);
    // a rolled-back insert leaves no hole.
    const [[id]] = await this.on.writes.rows<[number]>(
      `INSERT INTO api_keys (id, name, scope, key_hash, created_at, expires_at)
       SELECT coalesce(max(id), 0) + 1, CAST(? AS text), CAST(? AS text), CAST(? AS text), CAST(? AS text), CAST(? AS text) FROM api_keys RETURNING id`,
      [key.name, key.scope, key.keyHash, key.created, key.expires],
    );
    return id;
  }

  async byHash(keyHash: string): Promise<StoredKey | undefined> {
    return (await this.on.reads.objects<StoredKey>(KEY_BY_HASH, [keyHash]))[0];
  }

  async byId(id: number): Promise<StoredKey | undefined> {
    return (await this.on.reads.objects<StoredKey>(KEY_BY_ID, [id]))[0];
  }

  list(): Promise<Omit<StoredKey, 'keyHash'>[]> {
    return this.on.reads.objects('SELECT id, name, scope, created_at AS created, expires_at AS expires, revoked_at AS revoked FROM api_keys ORDER BY id');
  }

  async revoke(id: number, at: string): Promise<boolean> {
    const revoked = (await this.on.writes.rows('UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? RETURNING id', [at, id])).length === 1;
    if (!revoked) return false;
    await this.on.writes.run(BUMP_KEY_VERSION);
    await this.announce(id);
    return true;
  }

  count(): Promise<number> {
    return countOf(this.on.reads, 'api_keys');
  }
}

/** Every key with its hash, by id, in one query: what a copy takes of them. */
export function storedKeys(session: SqlSession): Promise<StoredKey[]> {
  return session.objects<StoredKey>(`SELECT ${KEY} FROM api_keys ORDER BY id`);
}

async function countOf(session: SqlSession, table: 'api_keys' | 'access_tokens' | 'audit_sessions'): Promise<number> {
  return (await session.value<number>(`SELECT count(*) FROM ${table}`)) ?? 0;
}

/**
 * The access tokens: issued and spent inside a unit. The check that decides is the one made inside the unit
 * (under the writer's lock); the early check, before the body is read, reads committed work.
 */
export class SqlTokenStore implements TokenStore {
  constructor(private readonly on: KeyTablesOn) {}

  async insert(tokenHash: string, token: Pick<StoredToken, 'keyId' | 'path' | 'expiresAt'>, now: number): Promise<void> {
    // Expired tokens are swept as new ones come, in the same unit: the table stays bounded.
    await this.on.writes.run('DELETE FROM access_tokens WHERE expires_at < ?', [now]);
    await this.on.writes.run('INSERT INTO access_tokens (token_hash, key_id, path, expires_at) VALUES (?, ?, ?, ?)', [tokenHash, token.keyId, token.path, token.expiresAt]);
  }

  async byHash(tokenHash: string): Promise<StoredToken | undefined> {
    const text = 'SELECT key_id AS "keyId", path, expires_at AS "expiresAt", body_hash AS "bodyHash", response FROM access_tokens WHERE token_hash = ?';
    return (await this.on.reads.objects<StoredToken>(text, [tokenHash]))[0];
  }

  async spend(tokenHash: string, bodyHash: string, response: string): Promise<boolean> {
    const text = 'UPDATE access_tokens SET body_hash = ?, response = ? WHERE token_hash = ? AND body_hash IS NULL RETURNING token_hash';
    return (await this.on.writes.rows(text, [bodyHash, response, tokenHash])).length === 1;
  }

  count(): Promise<number> {
    return countOf(this.on.reads, 'access_tokens');
  }
}

/** The sessions past their end (before the first parameter) or idle (since before the second): each an index range. */
export const SESSION_SWEEP = 'DELETE FROM audit_sessions WHERE ends_at <= ? OR last_seen_at < ?';

/** A key's sessions from its n-th newest back (the key, the key again, n - 1): by the index of a key's sessions. */
export const SESSIONS_PAST_CAP =
  'DELETE FROM audit_sessions WHERE key_id = ? AND (created_at, id_hash) <= (SELECT created_at, id_hash FROM audit_sessions WHERE key_id = ? ORDER BY created_at DESC, id_hash DESC LIMIT 1 OFFSET ?)';

/** The workbench's sessions, as `SqlTokenStore`. */
export class SqlSessionStore implements SessionStore {
  constructor(private readonly on: KeyTablesOn) {}

  async insert(idHash: string, session: StoredSession, now: number, idleSince: number, perKey: number): Promise<void> {
    await this.on.writes.run(SESSION_SWEEP, [now, idleSince]);
    // The key's sessions from its (perKey - 1)-th newest back end: with this one, perKey are left.
    await this.on.writes.run(SESSIONS_PAST_CAP, [session.keyId, session.keyId, perKey - 1]);
    await this.on.writes.run('INSERT INTO audit_sessions (id_hash, key_id, created_at, last_seen_at, ends_at) VALUES (?, ?, ?, ?, ?)', [
      idHash,
      session.keyId,
      session.created,
      session.lastSeen,
      session.ends,
    ]);
  }

  async byHash(idHash: string): Promise<(StoredSession & { key: StoredKey | undefined }) | undefined> {
    const [row] = await this.on.reads.objects<SessionWithKeyRow>(SESSION_WITH_KEY, [idHash]);
    if (row === undefined) return undefined;
    const { keyId, sessionCreated, lastSeen, ends, ...key } = row;
    return { keyId, created: sessionCreated, lastSeen, ends, key: key.id === null ? undefined : (key as StoredKey) };
  }

  touch(idHash: string, at: number): Promise<void> {
    return this.on.writes.run('UPDATE audit_sessions SET last_seen_at = ? WHERE id_hash = ?', [at, idHash]);
  }

  delete(idHash: string): Promise<void> {
    return this.on.writes.run('DELETE FROM audit_sessions WHERE id_hash = ?', [idHash]);
  }

  count(): Promise<number> {
    return countOf(this.on.reads, 'audit_sessions');
  }
}
