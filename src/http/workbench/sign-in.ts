import type { Context } from 'hono';
import { html } from 'hono/html';
import type { Company } from '../../company.ts';
import { declaredTooLarge } from '../node-request.ts';
import { sendBodyTooLarge } from '../respond.ts';
import { page, sendPage, viewOf } from './layout.ts';
import { returnPath } from './return-path.ts';
import type { Texts } from './texts.ts';
import { sessionCookie, sessionEnd, sessionValue } from './session.ts';

/** The page asked for before signing in, which signing in goes on to. */
const askedFor = (next: unknown) => returnPath(typeof next === 'string' ? next : undefined, '/audit/documents');

function form(c: Context, next: string, message?: (t: Texts) => string) {
  const view = viewOf(c);
  const { t } = view;
  return page(
    view,
    t.signIn.title,
    html`${message === undefined ? '' : html`<p class="bad" role="alert">${message(t)}</p>`}
<form class="search" method="post" action="/audit/sign-in">
  <input type="hidden" name="next" value="${next}">
  <label>${t.signIn.key} <input type="password" name="key" autocomplete="off" required size="48"></label>
  <button class="primary" type="submit">${t.signIn.submit}</button>
</form>
<p class="note">${t.signIn.note}</p>`,
  );
}

/**
 * The sign-in form, saying why when a session has just ended (`expired`: its time ran out; `ended`: its key was
 * revoked or expired, or the cookie was not one this server made), keeping the page asked for.
 */
export function signInPage(c: Context, reason?: 'expired', next = c.req.query('next')): Promise<Response> {
  const ended = reason ?? (c.req.query('ended') === '1' ? 'ended' : undefined);
  const message = ended === 'expired' ? (t: Texts) => t.signIn.ended : ended === 'ended' ? (t: Texts) => t.signIn.revoked : undefined;
  return sendPage(c, form(c, askedFor(next), message), reason === 'expired' ? 401 : 200);
}

/** Checks the key posted once and starts a session for an audit key; any other key is refused. */
export async function signIn(c: Context, tb: Company): Promise<Response> {
  if (declaredTooLarge(c)) return sendBodyTooLarge(c);
  const body = await c.req.parseBody();
  const given = typeof body.key === 'string' ? body.key.trim() : '';
  const known = given === '' ? undefined : await tb.keys.authenticate(given);
  const key = known && (await tb.keys.activeById(known.id));
  const next = askedFor(body.next);
  if (!key) return sendPage(c, form(c, next, (t) => t.signIn.unknownKey), 401);
  if (key.scope !== 'audit') return sendPage(c, form(c, next, (t) => t.signIn.notAudit), 401);
  const now = tb.clock();
  const ends = sessionEnd(key, now);
  c.header('Set-Cookie', sessionCookie(c, sessionValue(key, ends), Math.floor((ends - now) / 1000)));
  return c.redirect(next, 303);
}

export function signOut(c: Context): Response {
  c.header('Set-Cookie', sessionCookie(c, undefined));
  return c.redirect('/audit/sign-in', 303);
}
