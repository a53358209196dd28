import type { KeyChangeListener, KeyChangeSource } from '../storage/key-changes.ts';
import type { KeyScope } from '../storage/port.ts';

/** A key as the cache keeps it: what a request needs, and when it expires (ms; null: never). */
export interface CachedKey {
  id: number;
  scope: KeyScope;
  expiresAt: number | null;
}

/** What the server's settings choose of a cache. */
export interface KeyCacheSettings {
  /** The longest a change made by another process may take to reach this cache, in ms. */
  boundMs: number;
  /** Told once when cached keys stop being trusted (and why), once when they are trusted again. */
  onTrust?: (line: string) => void;
}

export interface KeyCacheOptions extends KeyCacheSettings {
  /** Keys kept at most; the oldest cached goes first. */
  capacity?: number;
  /** Monotonic ms (tests move it). */
  now?: () => number;
}

const DEFAULT_CAPACITY = 10_000;

/**
 * The keys a server has checked and found active, by their hash, so a request needs no database round trip for
 * its key. Only active keys are kept (an unknown key never is: nobody fills memory by guessing), at most
 * `capacity` of them. Expiry is checked on every hit; revocations and other changes reach the cache through
 * `forget` (the engine's notifications, and this server's own changes before it answers).
 *
 * A lookup that goes to the database takes a ticket first, and its answer is kept only when no change arrived
 * meanwhile: a key revoked while it was being read is not cached as active.
 */
export class KeyCache implements KeyChangeListener {
  private readonly entries = new Map<string, CachedKey>();
  private readonly capacity: number;
  private readonly now: () => number;
  /** Bumped by every change heard; a ticket of an older generation keeps nothing. */
  private generation = 0;
  /** Whether changes are heard: not yet, heard, or not any more (said in the log). */
  private state: 'starting' | 'listening' | 'lost' = 'starting';
  /** From when cached keys are trusted (monotonic ms), while listening. */
  private trustedFrom = Number.POSITIVE_INFINITY;

  /** `changes` starts telling the cache at once; until it says it is `listening`, nothing is cached. */
  constructor(
    private readonly options: KeyCacheOptions,
    private readonly changes: KeyChangeSource,
  ) {
    this.capacity = options.capacity ?? DEFAULT_CAPACITY;
    this.now = options.now ?? (() => performance.now());
    changes.start(this);
  }

  /** Stops hearing changes (the database is closing). */
  stop(): Promise<void> {
    return this.changes.stop();
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached key for `keyHash` while cached keys are trusted; undefined sends the caller to the database. */
  get(keyHash: string): CachedKey | undefined {
    return this.trusted() ? this.entries.get(keyHash) : undefined;
  }

  /** Taken before a lookup in the database; undefined when its answer must not be kept. */
  ticket(): number | undefined {
    return this.trusted() ? this.generation : undefined;
  }

  /** Keeps an active key read from the database under `ticket`, unless a change arrived since it was taken. */
  keep(keyHash: string, key: CachedKey, ticket: number | undefined): void {
    if (ticket !== this.generation || !this.trusted()) return;
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(keyHash, key);
  }

  /** Key `id` changed: the next request with it is checked in the database. */
  forget(id: number): void {
    this.generation++;
    for (const [keyHash, key] of this.entries) if (key.id === id) this.entries.delete(keyHash);
  }

  /** Some key may have changed: every next request's key is checked in the database. */
  forgetAll(): void {
    this.generation++;
    this.entries.clear();
  }

  /** Changes can no longer be heard: every key is checked in the database until `listening`. */
  lost(why: string): void {
    this.forgetAll();
    if (this.state !== 'lost') this.options.onTrust?.(`key cache off: ${why}; every request's key is checked in the database until it is back`);
    this.state = 'lost';
    this.trustedFrom = Number.POSITIVE_INFINITY;
  }

  /**
   * Changes are heard (again): cached keys are trusted once the bound has passed, so that a change made while
   * they were not heard, and any notification of it still on its way, cannot leave a key served that should not be.
   */
  listening(): void {
    this.forgetAll();
    if (this.state === 'lost') this.options.onTrust?.(`key cache back: key changes are heard again, cached keys trusted in ${this.options.boundMs} ms`);
    this.state = 'listening';
    this.trustedFrom = this.now() + this.options.boundMs;
  }

  private trusted(): boolean {
    return this.now() >= this.trustedFrom;
  }
}
