import { createHash, timingSafeEqual } from 'node:crypto';
import { customAlphabet } from 'nanoid';
import type { Sqlite } from '../storage/sqlite/open.ts';
import type { Clock } from '../lib/clock.ts';
import type { Writer } from '../storage/port.ts';

export type KeyScope = 'api' | 'audit';

export interface ApiKeyInfo {
  id: number;
  name: string;
  scope: KeyScope;
  created: string;
  expires: string | null;
  revoked: string | null;
}

const newSecret = customAlphabet('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 40);

/** SHA-256 (hex) of a key or an access token: the only form in which either is stored or logged. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** API keys, stored only as SHA-256 hashes; the key itself is shown once, when created. */
export class ApiKeys {
  private readonly byHash;

  /** A change of the keys is made through `writer`, and settles once it is durable. */
  constructor(
    private readonly db: Sqlite,
    private readonly clock: Clock,
    private readonly writer: Writer,
  ) {
    this.byHash = db.prepare('SELECT id, scope, key_hash, expires_at, revoked_at FROM api_keys WHERE key_hash = ?');
  }

  async create(options: { name?: string; scope?: KeyScope; expiresAt?: number | null; key?: string }): Promise<{ id: number; key: string }> {
    const key = options.key ?? `tb_${newSecret()}`;
    const id = await this.writer.run(
      () =>
        this.db
          .prepare('INSERT INTO api_keys (name, scope, key_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?) RETURNING id')
          .pluck()
          .get(
            options.name ?? 'key',
            options.scope ?? 'api',
            hashSecret(key),
            new Date(this.clock()).toISOString(),
            options.expiresAt == null ? null : new Date(options.expiresAt).toISOString(),
          ) as number,
    );
    return { id, key };
  }

  /** Registers a key given from outside (TRADEBOOK_API_KEY); registering it again changes nothing. */
  async register(key: string, name: string): Promise<number> {
    const existing = this.byHash.get(hashSecret(key)) as { id: number } | undefined;
    return existing?.id ?? (await this.create({ key, name })).id;
  }

  async count(): Promise<number> {
    return this.db.prepare('SELECT count(*) FROM api_keys').pluck().get() as number;
  }

  async list(): Promise<ApiKeyInfo[]> {
    return this.db
      .prepare('SELECT id, name, scope, created_at AS created, expires_at AS expires, revoked_at AS revoked FROM api_keys ORDER BY id')
      .all() as ApiKeyInfo[];
  }

  async revoke(id: number): Promise<boolean> {
    const now = new Date(this.clock()).toISOString();
    return this.writer.run(() => this.db.prepare('UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?').run(now, id).changes === 1);
  }

  async nameOf(id: number): Promise<string | undefined> {
    return this.db.prepare('SELECT name FROM api_keys WHERE id = ?').pluck().get(id) as string | undefined;
  }

  /**
   * A key by id when it is not revoked and not expired, with its stored hash: the secret a browser session made
   * with it is signed with, so a session never outlives its key (read fresh on every page).
   */
  async activeById(id: number): Promise<{ id: number; name: string; scope: KeyScope; keyHash: string; expires: string | null } | undefined> {
    const row = this.db.prepare('SELECT id, name, scope, key_hash AS keyHash, expires_at AS expires, revoked_at AS revoked FROM api_keys WHERE id = ?').get(id) as
      | { id: number; name: string; scope: KeyScope; keyHash: string; expires: string | null; revoked: string | null }
      | undefined;
    if (!row || row.revoked !== null || (row.expires !== null && Date.parse(row.expires) <= this.clock())) return undefined;
    const { revoked: _revoked, ...key } = row;
    return key;
  }

  /** The key's id and scope when it is known, not revoked and not expired; read fresh on every request. */
  async authenticate(key: string): Promise<{ id: number; scope: KeyScope } | undefined> {
    const hash = hashSecret(key);
    const row = this.byHash.get(hash) as
      | { id: number; scope: KeyScope; key_hash: string; expires_at: string | null; revoked_at: string | null }
      | undefined;
    if (!row || !timingSafeEqual(Buffer.from(row.key_hash), Buffer.from(hash))) return undefined;
    if (row.revoked_at !== null) return undefined;
    if (row.expires_at !== null && Date.parse(row.expires_at) <= this.clock()) return undefined;
    return { id: row.id, scope: row.scope };
  }
}
