import { createHmac, randomBytes } from 'node:crypto';

/**
 * Deliveries signed as the Standard Webhooks specification says (standardwebhooks.com), so a receiver checks
 * them with an existing library in its own language: the secret is `whsec_` and 24 random bytes in base64; each
 * delivery carries `webhook-id`, `webhook-timestamp` (seconds) and `webhook-signature`:
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body" under the secret's bytes>`.
 */

const PREFIX = 'whsec_';

export function newSecret(): string {
  return `${PREFIX}${randomBytes(24).toString('base64')}`;
}

export function signedHeaders(secret: string, id: string, at: Date, body: string): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
