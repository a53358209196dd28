import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { ApiKeys } from '../../tokens/api-keys.ts';
import { requestHeader } from '../node-request.ts';

/**
 * An auditor's browser session: the audit key is given once, on the sign-in form, and the browser keeps only a
 * cookie naming the key's id and the session's end, signed with the key's stored hash. Nothing on the server
 * keeps sessions, so any server of the same database accepts one, and revoking or expiring the key ends every
 * session made with it at once (the key is read afresh on each page). The key itself is never stored in the
 * browser, in a URL or in a log.
 */

export const SESSION_COOKIE = 'tb_audit';
/** How long a session lasts, unless its key expires sooner. */
export const SESSION_MS = 8 * 60 * 60 * 1000;

export interface AuditSession {
  keyId: number;
  keyName: string;
}

const signature = (keyHash: string, keyId: number, endsMs: number) =>
  createHmac('sha256', keyHash).update(`tradebook audit session ${keyId} ${endsMs}`).digest('base64url');

/** The cookie's value for a session of this key ending at `endsMs`. */
export function sessionValue(key: { id: number; keyHash: string }, endsMs: number): string {
  return `${key.id}.${endsMs}.${signature(key.keyHash, key.id, endsMs)}`;
}

/** When a session of this key made now ends: after SESSION_MS, or when the key expires if that is sooner. */
export function sessionEnd(key: { expires: string | null }, nowMs: number): number {
  return Math.min(nowMs + SESSION_MS, key.expires === null ? Infinity : Date.parse(key.expires));
}

export type SessionCheck = { ok: true; session: AuditSession } | { ok: false; reason: 'none' | 'expired' | 'invalid' };

/** The session the request's cookie proves: signed for an audit key that is still valid, and not past its end. */
export async function sessionOf(c: Context, keys: ApiKeys, nowMs: number): Promise<SessionCheck> {
  const value = getCookie(c, SESSION_COOKIE);
  if (value === undefined || value === '') return { ok: false, reason: 'none' };
  const match = /^(\d{1,15})\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (!match) return { ok: false, reason: 'invalid' };
  const [keyId, endsMs] = [Number(match[1]), Number(match[2])];
  const key = await keys.activeById(keyId);
  if (!key || key.scope !== 'audit') return { ok: false, reason: 'invalid' };
  const expected = Buffer.from(signature(key.keyHash, keyId, endsMs));
  const given = Buffer.from(match[3]);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'invalid' };
  if (endsMs <= nowMs) return { ok: false, reason: 'expired' };
  return { ok: true, session: { keyId, keyName: key.name } };
}

/** Whether the browser reached this server over HTTPS (directly, or through a proxy that says so). */
function overHttps(c: Context): boolean {
  return requestHeader(c, 'x-forwarded-proto') === 'https' || new URL(c.req.url).protocol === 'https:';
}

/** The Set-Cookie value starting a session (its value, lasting `maxAgeS`) or ending one (no value). */
export function sessionCookie(c: Context, value: string | undefined, maxAgeS = 0): string {
  const secure = overHttps(c) ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value ?? ''}; Path=/audit; Max-Age=${value === undefined ? 0 : maxAgeS}; HttpOnly; SameSite=Strict${secure}`;
}
