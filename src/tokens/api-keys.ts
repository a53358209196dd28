import { createHash, timingSafeEqual } from 'node:crypto';
import { customAlphabet } from 'nanoid';
import type { Sqlite } from '../storage/sqlite/open.ts';
import type { Clock } from '../lib/clock.ts';

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

  /** `durably` commits a change of the keys on its own and returns once it is on disk. */
  constructor(
    private readonly db: Sqlite,
    private readonly clock: Clock,
    private readonly durably: <T>(work: () => T) => T,
  ) {
    this.byHash = db.prepare('SELECT id, scope, key_hash, expires_at, revoked_at FROM api_keys WHERE key_hash = ?');
  }

  create(options: { name?: string; scope?: KeyScope; expiresAt?: number | null; key?: string }): { id: number; key: string } {
    const key = options.key ?? `tb_${newSecret()}`;
    const id = this.durably(
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
  register(key: string, name: string): number {
    const existing = this.byHash.get(hashSecret(key)) as { id: number } | undefined;
    return existing?.id ?? this.create({ key, name }).id;
  }

  count(): number {
    return this.db.prepare('SELECT count(*) FROM api_keys').pluck().get() as number;
  }

  list(): ApiKeyInfo[] {
    return this.db
      .prepare('SELECT id, name, scope, created_at AS created, expires_at AS expires, revoked_at AS revoked FROM api_keys ORDER BY id')
      .all() as ApiKeyInfo[];
  }

  revoke(id: number): boolean {
    const now = new Date(this.clock()).toISOString();
    return this.durably(() => this.db.prepare('UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?').run(now, id).changes === 1);
  }

  nameOf(id: number): string | undefined {
    return this.db.prepare('SELECT name FROM api_keys WHERE id = ?').pluck().get(id) as string | undefined;
  }

  /** The key's id and scope when it is known, not revoked and not expired; read fresh on every request. */
  authenticate(key: string): { id: number; scope: KeyScope } | undefined {
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
