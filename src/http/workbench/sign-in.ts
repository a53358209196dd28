import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { html } from 'hono/html';
import type { Company } from '../../company.ts';
import { page, sendPage } from './layout.ts';
import { formCookie, formTokenOf, sessionCookie } from './session.ts';
import type { SignInFailures } from './sign-in-failures.ts';
import type { WorkbenchEnv } from './workbench-env.ts';

const form = (token: string, message?: string) =>
  page(
    'Sign in',
    html`${message === undefined ? '' : html`<p class="bad">${message}</p>`}
<form class="search" method="post" action="/audit/sign-in">
  <input type="hidden" name="form" value="${token}">
  <label>Audit key <input type="password" name="key" autocomplete="off" required size="48"></label>
  <button class="primary" type="submit">Sign in</button>
</form>
<p class="note">Keys created with <code>tradebook keys create --scope audit</code> sign in here. The key is checked once;
the browser then keeps only a session cookie, which ends after 8 hours, when the key expires or is revoked, or at sign-out.</p>`,
  );

/**
 * The sign-in form, and why if given. A form shown afresh gets a token of its own (also in a cookie, which its
 * post must bring back); one shown again after a refused post keeps that post's token.
 */
export function signInPage(c: Context, message?: string, status: 200 | 401 | 429 = 200, token?: string): Promise<Response> {
  if (token === undefined) {
    token = randomBytes(32).toString('base64url');
    c.header('Set-Cookie', formCookie(c, token), { append: true });
  }
  return sendPage(c, form(token, message), status);
}

/** What a sign-in needs beyond the company: the idle time of its sessions, and the failures counted so far. */
export interface SignInOptions {
  idleMs: number;
  failures: SignInFailures;
  /** Where each failed sign-in is told (one log line each), with the client's address. */
  onFailure: (failure: { client: string; reason: string }) => void;
}

/**
 * Checks the key posted once (the form's token already checked) and starts a session for an audit key; any
 * other key is refused. An address with too many failures in the last minute is refused before its key is
 * looked at.
 */
export async function signIn(c: Context<WorkbenchEnv>, tb: Company, client: string, options: SignInOptions): Promise<Response> {
  const wait = options.failures.retryAfterS(client);
  if (wait !== undefined) {
    c.header('Retry-After', String(wait));
    return signInPage(c, `Too many failed sign-ins from your address: try again in ${wait} s.`, 429, formTokenOf(c));
  }
  const key = c.get('form').get('key');
  const given = typeof key === 'string' ? key.trim() : '';
  const known = given === '' ? undefined : await tb.keys.authenticate(given);
  const found = known && (await tb.keys.activeById(known.id));
  if (!found || found.scope !== 'audit') {
    options.failures.record(client);
    options.onFailure({ client, reason: found ? `key ${found.id} is not an audit key` : 'unknown, revoked or expired key' });
    const message = found ? 'That key is not an audit key: only keys with the audit scope open the workbench.' : 'That key is unknown, revoked or expired.';
    return signInPage(c, message, 401, formTokenOf(c));
  }
  const session = await tb.sessions.start(found, options.idleMs);
  c.header('Set-Cookie', sessionCookie(c, session.id, Math.floor(session.lastsMs / 1000)));
  // The form is spent.
  c.header('Set-Cookie', formCookie(c, undefined), { append: true });
  return c.redirect('/audit/documents', 303);
}

/** Ends the session (its row deleted: the cookie, wherever copied, opens nothing) and clears the cookie. */
export async function signOut(c: Context<WorkbenchEnv>, tb: Company, id: string): Promise<Response> {
  await tb.sessions.end(id);
  c.header('Set-Cookie', sessionCookie(c, undefined));
  return c.redirect('/audit/sign-in', 303);
}
