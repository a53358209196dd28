import { createMiddleware } from 'hono/factory';
import type { ApiKeys } from '../tokens/api-keys.ts';
import type { AppEnv } from './env.ts';
import { sendError } from './respond.ts';
import { requestHeader } from './node-request.ts';

// A request without a valid key has its connection closed after the 401: whatever body it carries is never read.
const CLOSE = { Connection: 'close' };

/** Every request carries `Authorization: Bearer <key>`; the key is checked afresh each time, so a revocation counts at once. */
export function requireApiKey(keys: ApiKeys) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const header = requestHeader(c, 'authorization') ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) return sendError(c, 401, 'ERROR_NO_API_KEY', 'send the API key as Authorization: Bearer <key>', CLOSE);
    const key = await keys.authenticate(match[1]);
    if (!key) return sendError(c, 401, 'ERROR_USER_ACCESS', 'the API key is unknown, revoked or expired', CLOSE);
    c.set('key', key);
    await next();
  });
}
