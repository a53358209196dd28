import { createHmac, randomBytes } from 'node:crypto';
import type { Clock } from '../lib/clock.ts';
import type { SessionStore, Writer } from '../storage/port.ts';
import { type ApiKeys, hashSecret } from './api-keys.ts';

/**
 * The workbench's sign-in sessions, kept in the database beside the keys (every server of a PostgreSQL database
 * shares them). A session's id is 256 random bits that only the browser's cookie holds; the database keeps its
 * SHA-256, so nothing in it or in a backup lets anyone make a session. A session ends at sign-out (deleted), when
 * its key is revoked or expires (the key is read on every page), 8 hours after sign-in, or after the idle time
 * without a page. Ended sessions are swept when a session starts.
 */

/** How long a session lasts at most, unless its key expires sooner. */
const SESSION_MS = 8 * 60 * 60 * 1000;
/** A session unused this long has ended, unless the server is told otherwise. */
export const DEFAULT_IDLE_MS = 30 * 60 * 1000;
/** Sessions of one key live at once at most; signing in once more ends the oldest. */
export const MAX_SESSIONS_PER_KEY = 20;

/**
 * Reading pages does not become a write a page: the time a session was last used is written when it is older
 * than this, a tenth of the idle time and at most a minute. The page last used is therefore at most this much
 * after the time written, and idle time is counted from the latest it can be: a session ends between the idle
 * time and the idle time plus this after its last page, never sooner.
 */
const seenEveryMs = (idleMs: number) => Math.min(60 * 1000, Math.ceil(idleMs / 10));

export interface AuditSession {
  keyId: number;
  keyName: string;
  /** The SHA-256 (hex) of its id, as stored: what logs name it by. */
  idHash: string;
  /** The token its pages' forms carry, proving a post came from one of them. */
  formToken: string;
}

/** Why a session the database held is no longer on: its key revoked or expired, its 8 hours over, or unused for the idle time. */
export type SessionEnd = 'key' | 'lifetime' | 'idle';

export type SessionCheck = { ok: true; session: AuditSession } | { ok: false; reason: 'none' } | { ok: false; reason: 'ended'; why: SessionEnd };

/** The token of a session's forms: derived from its id, which only the browser holds. */
const formTokenOf = (id: string) => createHmac('sha256', id).update('tradebook workbench form').digest('base64url');

/** A session id as the cookie carries it: 32 bytes in base64url. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export class AuditSessions {
  constructor(
    private readonly store: SessionStore,
    private readonly keys: ApiKeys,
    private readonly clock: Clock,
    private readonly writer: Writer,
  ) {}

  /**
   * Starts a session for an audit key, ending the key's oldest beyond `MAX_SESSIONS_PER_KEY`; answers its id (for
   * the cookie only), how long it lasts at most, and what ends it then: its 8 hours, or its key expiring sooner.
   */
  async start(key: { id: number; expires: string | null }, idleMs: number): Promise<{ id: string; lastsMs: number; endedBy: 'lifetime' | 'key' }> {
    const id = randomBytes(32).toString('base64url');
    const now = this.clock();
    const keyEnds = key.expires === null ? Infinity : Date.parse(key.expires);
    const ends = Math.min(now + SESSION_MS, keyEnds);
    const idleSince = now - idleMs - seenEveryMs(idleMs);
    await this.writer.run(() => this.store.insert(hashSecret(id), { keyId: key.id, created: now, lastSeen: now, ends }, now, idleSince, MAX_SESSIONS_PER_KEY));
    return { id, lastsMs: ends - now, endedBy: keyEnds < now + SESSION_MS ? 'key' : 'lifetime' };
  }

  /**
   * The session of this id if it is still on: not past its end, used within `idleMs`, its key an audit key
   * neither revoked nor expired (idle time counted as `seenEveryMs` says). Its last use is recorded. A session found ended is
   * deleted ('ended', and why); an id the database does not hold is 'none'.
   */
  async check(id: string, idleMs: number): Promise<SessionCheck> {
    if (!SESSION_ID.test(id)) return { ok: false, reason: 'none' };
    const idHash = hashSecret(id);
    const stored = await this.store.byHash(idHash);
    if (stored === undefined) return { ok: false, reason: 'none' };
    const now = this.clock();
    const key = this.keys.activeOf(stored.key);
    const seenEvery = seenEveryMs(idleMs);
    if (key === undefined || key.scope !== 'audit' || now >= stored.ends || now - stored.lastSeen >= idleMs + seenEvery) {
      await this.writer.run(() => this.store.delete(idHash));
      const why = key === undefined || key.scope !== 'audit' ? 'key' : now >= stored.ends ? 'lifetime' : 'idle';
      return { ok: false, reason: 'ended', why };
    }
    if (now - stored.lastSeen >= seenEvery) await this.writer.run(() => this.store.touch(idHash, now));
    return { ok: true, session: { keyId: key.id, keyName: key.name, idHash, formToken: formTokenOf(id) } };
  }

  /** Ends the session of this id (sign-out). */
  async end(id: string): Promise<void> {
    await this.writer.run(() => this.store.delete(hashSecret(id)));
  }

  count(): Promise<number> {
    return this.store.count();
  }
}
