import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';

export type { AuditSession } from '../../tokens/audit-sessions.ts';

/**
 * The workbench's cookies. The session's holds its id (`AuditSessions` in tokens/audit-sessions.ts): the key
 * itself is never stored in the browser, in a URL or in a log. The sign-in form's holds that form's token,
 * before there is a session to derive one from. A third, holding no secret, says what ends the session at its
 * time (`lifetime` or `key`) and outlives the session's cookie by a day: a browser drops the session's cookie the
 * moment the session's time is up, and this one lets the sign-in page still say why.
 */

const SESSION_COOKIE = 'tb_audit';
const FORM_COOKIE = 'tb_form';
const ENDED_BY_COOKIE = 'tb_ends';
const ENDED_BY_KEPT_S = 24 * 60 * 60;
/** How long a sign-in form stays usable once shown. */
const FORM_MAX_AGE_S = 60 * 60;

/** Whether the browser reached this server over HTTPS (directly, or through a trusted proxy that says so): set by the workbench's routes. */
const overHttps = (c: Context): boolean => c.get('overHttps') === true;

const cookie = (c: Context, name: string, value: string | undefined, path: string, maxAgeS: number) =>
  `${name}=${value ?? ''}; Path=${path}; Max-Age=${value === undefined ? 0 : maxAgeS}; HttpOnly; SameSite=Strict${overHttps(c) ? '; Secure' : ''}`;

/** The Set-Cookie value starting a session (its id, lasting `maxAgeS`) or ending one (no value). */
export const sessionCookie = (c: Context, id: string | undefined, maxAgeS = 0) => cookie(c, SESSION_COOKIE, id, '/audit', maxAgeS);

/** The session id the request's cookie holds, if any. */
export const sessionIdOf = (c: Context) => getCookie(c, SESSION_COOKIE) || undefined;

/** The Set-Cookie value giving a sign-in form its token (sent back only to the sign-in path), or clearing it (none). */
export const formCookie = (c: Context, token: string | undefined) => cookie(c, FORM_COOKIE, token, '/audit/sign-in', FORM_MAX_AGE_S);

/** The token of the sign-in form this browser was shown, if any. */
export const formTokenOf = (c: Context) => getCookie(c, FORM_COOKIE) || undefined;

/** The Set-Cookie value saying what ends a session lasting `maxAgeS` (`lifetime` or `key`), or clearing it (none). */
export const endedByCookie = (c: Context, by: 'lifetime' | 'key' | undefined, maxAgeS = 0) => cookie(c, ENDED_BY_COOKIE, by, '/audit', maxAgeS + ENDED_BY_KEPT_S);

/** What ended a session whose cookie the browser has dropped at its time, if the browser had one. */
export function endedByOf(c: Context): 'lifetime' | 'key' | undefined {
  const by = getCookie(c, ENDED_BY_COOKIE);
  return by === 'lifetime' || by === 'key' ? by : undefined;
}
