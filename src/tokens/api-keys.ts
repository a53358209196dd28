import { hash, timingSafeEqual } from 'node:crypto';
import { customAlphabet } from 'nanoid';
import type { Clock } from '../lib/clock.ts';
import type { KeyScope, KeyStore, StoredKey, Writer } from '../storage/port.ts';
import type { KeyCache } from './key-cache.ts';

export type { KeyScope };

export type ApiKeyInfo = Omit<StoredKey, 'keyHash'>;

/** A key neither revoked nor expired. */
export type ActiveKey = Pick<StoredKey, 'id' | 'name' | 'scope' | 'keyHash' | 'expires'>;

const newSecret = customAlphabet('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 40);

/** SHA-256 (hex) of a key or an access token: the only form in which either is stored or logged. */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** API keys, stored only as SHA-256 hashes; the key itself is shown once, when created. */
export class ApiKeys {
  /**
   * A change of the keys is made through `writer`, and settles once it is durable. With a `cache`, `authenticate`
   * answers the keys it holds without a lookup, and this process's own changes reach it before they settle.
   */
  constructor(
    private readonly store: KeyStore,
    private readonly clock: Clock,
    private readonly writer: Writer,
    private readonly cache?: KeyCache,
  ) {}

  async create(options: { name?: string; scope?: KeyScope; expiresAt?: number | null; key?: string }): Promise<{ id: number; key: string }> {
    const key = options.key ?? `tb_${newSecret()}`;
    const record = this.record(key, options);
    // Nothing to tell a cache: it never holds a key it did not find.
    return { id: await this.writer.run(() => this.store.insert(record)), key };
  }

  /** Registers a key given from outside (TRADEBOOK_API_KEY); registering it again changes nothing. */
  async register(key: string, name: string): Promise<number> {
    const keyHash = hashSecret(key);
    const known = await this.store.byHash(keyHash);
    if (known) return known.id;
    // Servers starting together with the same key: the check that decides runs in the unit, under the write lock.
    return this.writer.run(async () => (await this.store.byHash(keyHash))?.id ?? this.store.insert(this.record(key, { name })));
  }

  private record(key: string, options: { name?: string; scope?: KeyScope; expiresAt?: number | null }): Omit<StoredKey, 'id' | 'revoked'> {
    return {
      name: options.name ?? 'key',
      scope: options.scope ?? 'api',
      keyHash: hashSecret(key),
      created: new Date(this.clock()).toISOString(),
      expires: options.expiresAt == null ? null : new Date(options.expiresAt).toISOString(),
    };
  }

  count(): Promise<number> {
    return this.store.count();
  }

  list(): Promise<ApiKeyInfo[]> {
    return this.store.list();
  }

  async revoke(id: number): Promise<boolean> {
    const now = new Date(this.clock()).toISOString();
    const revoked = await this.writer.run(() => this.store.revoke(id, now));
    // Before the revocation is answered: this server's next request with the key is refused.
    this.cache?.forget(id);
    return revoked;
  }

  async nameOf(id: number): Promise<string | undefined> {
    return (await this.store.byId(id))?.name;
  }

  /** A key by id when it is not revoked and not expired: a workbench session never outlives its key (read fresh on every page). */
  async activeById(id: number): Promise<ActiveKey | undefined> {
    return this.activeOf(await this.store.byId(id));
  }

  /** A key as read from the database, when it is not revoked and not expired now. */
  activeOf(row: StoredKey | undefined): ActiveKey | undefined {
    if (!row || !this.active(row)) return undefined;
    return { id: row.id, name: row.name, scope: row.scope, keyHash: row.keyHash, expires: row.expires };
  }

  /**
   * The key's id and scope when it is known, not revoked and not expired: from the cache when it holds the key
   * (its expiry checked now), else read from the database, and an active key kept in the cache.
   */
  async authenticate(key: string): Promise<{ id: number; scope: KeyScope } | undefined> {
    const given = hashSecret(key);
    const cached = this.cache?.get(given);
    if (cached) return cached.expiresAt === null || cached.expiresAt > this.clock() ? { id: cached.id, scope: cached.scope } : undefined;
    const ticket = this.cache?.ticket();
    const row = await this.store.byHash(given);
    if (!row || !timingSafeEqual(Buffer.from(row.keyHash), Buffer.from(given)) || !this.active(row)) return undefined;
    this.cache?.keep(given, { id: row.id, scope: row.scope, expiresAt: row.expires === null ? null : Date.parse(row.expires) }, ticket);
    return { id: row.id, scope: row.scope };
  }

  private active(row: StoredKey): boolean {
    return row.revoked === null && (row.expires === null || Date.parse(row.expires) > this.clock());
  }
}
