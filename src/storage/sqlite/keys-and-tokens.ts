import type { KeyStore, SessionStore, StoredKey, StoredSession, StoredToken, TokenStore } from '../port.ts';
import type { Sqlite } from './open.ts';

const KEY = 'id, name, scope, key_hash AS keyHash, created_at AS created, expires_at AS expires, revoked_at AS revoked';

/** The API keys on SQLite, on the writer's connection: a write runs in the unit of the writer that calls it. */
export class SqliteKeyStore implements KeyStore {
  private readonly statements;

  constructor(db: Sqlite) {
    this.statements = {
      // The id is SQLite's rowid: the highest so far, plus one (keys are never deleted).
      insert: db.prepare('INSERT INTO api_keys (name, scope, key_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?) RETURNING id').pluck(),
      byHash: db.prepare(`SELECT ${KEY} FROM api_keys WHERE key_hash = ?`),
      byId: db.prepare(`SELECT ${KEY} FROM api_keys WHERE id = ?`),
      list: db.prepare('SELECT id, name, scope, created_at AS created, expires_at AS expires, revoked_at AS revoked FROM api_keys ORDER BY id'),
      revoke: db.prepare('UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?'),
      count: db.prepare('SELECT count(*) FROM api_keys').pluck(),
    };
  }

  async insert(key: Omit<StoredKey, 'id' | 'revoked'>): Promise<number> {
    return this.statements.insert.get(key.name, key.scope, key.keyHash, key.created, key.expires) as number;
  }

  async byHash(keyHash: string): Promise<StoredKey | undefined> {
    return this.statements.byHash.get(keyHash) as StoredKey | undefined;
  }

  async byId(id: number): Promise<StoredKey | undefined> {
    return this.statements.byId.get(id) as StoredKey | undefined;
  }

  async list(): Promise<Omit<StoredKey, 'keyHash'>[]> {
    return this.statements.list.all() as Omit<StoredKey, 'keyHash'>[];
  }

  async revoke(id: number, at: string): Promise<boolean> {
    return this.statements.revoke.run(at, id).changes === 1;
  }

  async count(): Promise<number> {
    return this.statements.count.get() as number;
  }
}

/** Every key with its hash, by id, in one query: what a copy takes of them. */
export function storedKeys(db: Sqlite): StoredKey[] {
  return db.prepare(`SELECT ${KEY} FROM api_keys ORDER BY id`).all() as StoredKey[];
}

/** One transaction deleting a table's expired rows (`sweep`) and inserting one (`insert`): short-lived rows stay bounded. */
function sweepingInsert(db: Sqlite, sweep: string, insert: string): (sweepValues: unknown[], insertValues: unknown[]) => void {
  const [sweeping, inserting] = [db.prepare(sweep), db.prepare(insert)];
  return db.transaction((sweepValues: unknown[], insertValues: unknown[]) => {
    sweeping.run(...sweepValues);
    inserting.run(...insertValues);
  });
}

/** The access tokens on SQLite, on the writer's connection, as `SqliteKeyStore`. */
export class SqliteTokenStore implements TokenStore {
  private readonly statements;
  private readonly store;

  constructor(db: Sqlite) {
    this.store = sweepingInsert(db, 'DELETE FROM access_tokens WHERE expires_at < ?', 'INSERT INTO access_tokens (token_hash, key_id, path, expires_at) VALUES (?, ?, ?, ?)');
    this.statements = {
      byHash: db.prepare('SELECT key_id AS keyId, path, expires_at AS expiresAt, body_hash AS bodyHash, response FROM access_tokens WHERE token_hash = ?'),
      spend: db.prepare('UPDATE access_tokens SET body_hash = ?, response = ? WHERE token_hash = ? AND body_hash IS NULL'),
      count: db.prepare('SELECT count(*) FROM access_tokens').pluck(),
    };
  }

  async insert(tokenHash: string, token: Pick<StoredToken, 'keyId' | 'path' | 'expiresAt'>, now: number): Promise<void> {
    this.store([now], [tokenHash, token.keyId, token.path, token.expiresAt]);
  }

  async byHash(tokenHash: string): Promise<StoredToken | undefined> {
    return this.statements.byHash.get(tokenHash) as StoredToken | undefined;
  }

  async spend(tokenHash: string, bodyHash: string, response: string): Promise<boolean> {
    return this.statements.spend.run(bodyHash, response, tokenHash).changes === 1;
  }

  async count(): Promise<number> {
    return this.statements.count.get() as number;
  }
}

/** The workbench's sessions on SQLite, on the writer's connection, as `SqliteKeyStore`. */
export class SqliteSessionStore implements SessionStore {
  private readonly statements;
  private readonly store;

  constructor(db: Sqlite) {
    this.store = sweepingInsert(
      db,
      'DELETE FROM audit_sessions WHERE ends_at <= ? OR last_seen_at < ?',
      'INSERT INTO audit_sessions (id_hash, key_id, created_at, last_seen_at, ends_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.statements = {
      byHash: db.prepare('SELECT key_id AS keyId, created_at AS created, last_seen_at AS lastSeen, ends_at AS ends FROM audit_sessions WHERE id_hash = ?'),
      touch: db.prepare('UPDATE audit_sessions SET last_seen_at = ? WHERE id_hash = ?'),
      delete: db.prepare('DELETE FROM audit_sessions WHERE id_hash = ?'),
      count: db.prepare('SELECT count(*) FROM audit_sessions').pluck(),
    };
  }

  async insert(idHash: string, session: StoredSession, now: number, idleSince: number): Promise<void> {
    this.store([now, idleSince], [idHash, session.keyId, session.created, session.lastSeen, session.ends]);
  }

  async byHash(idHash: string): Promise<StoredSession | undefined> {
    return this.statements.byHash.get(idHash) as StoredSession | undefined;
  }

  async touch(idHash: string, at: number): Promise<void> {
    this.statements.touch.run(at, idHash);
  }

  async delete(idHash: string): Promise<void> {
    this.statements.delete.run(idHash);
  }

  async count(): Promise<number> {
    return this.statements.count.get() as number;
  }
}
