import type { Context } from 'hono';
import { html } from 'hono/html';
import type { Company } from '../../company.ts';
import { formFields } from '../body-limit.ts';
import { page, sendPage } from './layout.ts';
import { sessionCookie, sessionEnd, sessionValue } from './session.ts';

const form = (message?: string) =>
  page(
    'Sign in',
    html`${message === undefined ? '' : html`<p class="bad">${message}</p>`}
<form class="search" method="post" action="/audit/sign-in">
  <label>Audit key <input type="password" name="key" autocomplete="off" required size="48"></label>
  <button class="primary" type="submit">Sign in</button>
</form>
<p class="note">Keys created with <code>tradebook keys create --scope audit</code> sign in here. The key is checked once;
the browser then keeps only a session cookie, which ends after 8 hours, when the key expires or is revoked, or at sign-out.</p>`,
  );

/** The sign-in form, saying why when a session has just ended. */
export function signInPage(c: Context, reason?: 'expired'): Promise<Response> {
  return sendPage(c, form(reason === 'expired' ? 'Your session has ended: sign in again.' : undefined), reason === 'expired' ? 401 : 200);
}

/** Checks the key posted once and starts a session for an audit key; any other key is refused. */
export async function signIn(c: Context, tb: Company): Promise<Response> {
  const key = (await formFields(c)).get('key');
  const given = typeof key === 'string' ? key.trim() : '';
  const known = given === '' ? undefined : await tb.keys.authenticate(given);
  const found = known && (await tb.keys.activeById(known.id));
  if (!found) return sendPage(c, form('That key is unknown, revoked or expired.'), 401);
  if (found.scope !== 'audit') return sendPage(c, form('That key is not an audit key: only keys with the audit scope open the workbench.'), 401);
  const now = tb.clock();
  const ends = sessionEnd(found, now);
  c.header('Set-Cookie', sessionCookie(c, sessionValue(found, ends), Math.floor((ends - now) / 1000)));
  return c.redirect('/audit/documents', 303);
}

export function signOut(c: Context): Response {
  c.header('Set-Cookie', sessionCookie(c, undefined));
  return c.redirect('/audit/sign-in', 303);
}
