import { createMiddleware } from 'hono/factory';
import type { ApiKeys } from '../tokens/api-keys.ts';
import type { AppEnv } from './env.ts';
import { sendError } from './respond.ts';
import { requestHeader } from './node-request.ts';
import { logAs } from './access-log.ts';

// A request without a valid key has its connection closed after the 401: whatever body it carries is never read.
const CLOSE = { Connection: 'close' };

/**
 * Every request carries `Authorization: Bearer <key>`; the key is checked on every request, against the server's
 * key cache when it has one (a revocation reaches it within the cache's bound, at once on the server that made it).
 */
export function requireApiKey(keys: ApiKeys) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const header = requestHeader(c, 'authorization') ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) return sendError(c, 401, 'ERROR_NO_API_KEY', 'send the API key as Authorization: Bearer <key>', CLOSE);
    const key = await keys.authenticate(match[1]);
    if (!key) return sendError(c, 401, 'ERROR_USER_ACCESS', 'the API key is unknown, revoked or expired', CLOSE);
    c.set('key', key);
    logAs(c, key);
    await next();
  });
}

/** The audit endpoints answer only keys with the audit scope; to any other key they are refused like a bad key. */
export const requireAuditScope = createMiddleware<AppEnv>(async (c, next) => {
  if (c.get('key').scope !== 'audit') return sendError(c, 401, 'ERROR_USER_ACCESS', 'this endpoint needs a key with the audit scope');
  await next();
});

/** An auditor must not change what they audit: keys with the audit scope only read, every write path refuses them. */
export const requireWriteScope = createMiddleware<AppEnv>(async (c, next) => {
  if (c.get('key').scope === 'audit') return sendError(c, 401, 'ERROR_USER_ACCESS', 'a key with the audit scope only reads; writes need a key with the api scope');
  await next();
});
