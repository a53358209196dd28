import type { EventMetas, NewEvent, StoredEvent } from '../events/rows.ts';

/**
 * The storage seam for writes, as the use cases see it: nothing engine-specific. Every call answers with a
 * promise, so an engine that talks over a network (PostgreSQL) fits the same shape as the embedded one (SQLite,
 * `sqlite/`), whose promises are settled at once.
 */

/**
 * The one writer of a database: the server's requests, an import and a seed all write through it, so they take
 * turns instead of racing each other for the lock.
 */
/**
 * When a unit's promise settles: once its transaction is `durable` (on disk), or once it is `committed` (visible
 * to every connection, not yet on disk). A committed unit is made durable by the next durable commit after it
 * (SQLite's WAL and PostgreSQL's are written and flushed in order), and a crash before that may lose it: only
 * what a client can safely ask for again is written so (an access token: a lost one is refused as unknown).
 */
export type Settles = 'durable' | 'committed';

export interface Writer {
  /**
   * Runs `unit` in the next group transaction, in a savepoint of its own, and settles once that transaction is
   * durable (or, asked for, once it committed: `Settles`). A unit that throws is undone alone and rejected with its
   * error, and the rest of its group stands; when the group as a whole fails (a storage fault, the lock held past
   * the budget), every unit of it is rejected with the engine-neutral error of `errors.ts` and nothing of the group
   * is applied.
   */
  run<T>(unit: () => Promise<T> | T, settles?: Settles): Promise<T>;
  /** Resolves once every write committed so far that settles when durable is durable (a replayed answer waits for this). */
  durable(): Promise<void>;
  /**
   * Leaves the lock free long enough for another process's writer to take it: a long run of groups (an import)
   * calls this between them.
   */
  giveTurn(): Promise<void>;
  /** `listener` is told after each group's commit, before it is durable (what it committed is visible to readers). */
  onCommit(listener: () => void): void;
}

/** The append-only log as writes use it. */
export interface EventLog {
  /**
   * Appends `events` with `meta` (one for all, or one an event) inside the unit of work running on the writer,
   * and applies them to the read tables in the same transaction: log and read tables commit together or not at all.
   */
  append(events: NewEvent[], meta: EventMetas): Promise<StoredEvent[]>;
}

/** Who a key lets in: the trade API, or the audit endpoints only (they read, never write). */
export type KeyScope = 'api' | 'audit';

/** An API key as stored: never the key itself, only its SHA-256 hash. Times are ISO 8601. */
export interface StoredKey {
  id: number;
  name: string;
  scope: KeyScope;
  keyHash: string;
  created: string;
  expires: string | null;
  revoked: string | null;
}

/**
 * The API keys table. Writes (`insert`, `revoke`) run inside a unit of the writer; a read inside a unit sees that
 * unit's group, a read outside one sees what is committed.
 */
export interface KeyStore {
  /** Stores a new key and answers its id, the next after the highest so far. */
  insert(key: Omit<StoredKey, 'id' | 'revoked'>): Promise<number>;
  byHash(keyHash: string): Promise<StoredKey | undefined>;
  byId(id: number): Promise<StoredKey | undefined>;
  /** Every key, by id, without its hash. */
  list(): Promise<Omit<StoredKey, 'keyHash'>[]>;
  /** Marks the key revoked at `at` unless it already is (the first revocation's time stays); false when no such key. */
  revoke(id: number, at: string): Promise<boolean>;
  count(): Promise<number>;
}

/** A write token as stored: only its hash is the key. `expiresAt` is in ms; a spent token has its body's hash and answer. */
export interface StoredToken {
  keyId: number;
  path: string;
  expiresAt: number;
  bodyHash: string | null;
  response: string | null;
}

/** A workbench session as stored: only its id's hash is the key. Times are in ms. */
export interface StoredSession {
  keyId: number;
  created: number;
  lastSeen: number;
  /** When it ends whatever happens: 8 hours after sign-in, or when its key expires if sooner. */
  ends: number;
}

/** The workbench's sessions table; writes run inside a unit of the writer, reads as `KeyStore`'s. */
export interface SessionStore {
  /**
   * Deletes the sessions past their end or idle since before `idleSince`, and the oldest of this session's key
   * beyond the newest `perKey - 1`, then stores this one.
   */
  insert(idHash: string, session: StoredSession, now: number, idleSince: number, perKey: number): Promise<void>;
  /** The session with its key as it stands now (undefined when the key is gone), read together. */
  byHash(idHash: string): Promise<(StoredSession & { key: StoredKey | undefined }) | undefined>;
  /** Records that the session was used at `at`. */
  touch(idHash: string, at: number): Promise<void>;
  delete(idHash: string): Promise<void>;
  count(): Promise<number>;
}

/** The access tokens table; `insert` and `spend` run inside a unit of the writer, reads as `KeyStore`'s. */
export interface TokenStore {
  /** Deletes the tokens expired before `now`, then stores this one. */
  insert(tokenHash: string, token: Pick<StoredToken, 'keyId' | 'path' | 'expiresAt'>, now: number): Promise<void>;
  byHash(tokenHash: string): Promise<StoredToken | undefined>;
  /** Records the body's hash and the answer on a token not spent yet; false when it is spent already (or unknown). */
  spend(tokenHash: string, bodyHash: string, response: string): Promise<boolean>;
  count(): Promise<number>;
}
