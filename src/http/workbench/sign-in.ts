import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { html } from 'hono/html';
import type { Company } from '../../company.ts';
import type { SessionEnd } from '../../tokens/audit-sessions.ts';
import { page, sendPage, tokenField, viewOf } from './layout.ts';
import { returnPath } from './return-path.ts';
import { endedByCookie, formCookie, formTokenOf, sessionCookie } from './session.ts';
import type { SignInFailures } from './sign-in-failures.ts';
import type { Texts } from './texts.ts';
import type { WorkbenchEnv } from './workbench-env.ts';

/** The page asked for before signing in, which signing in goes on to: only a page under /audit. */
const askedFor = (next: unknown) => returnPath(typeof next === 'string' ? next : undefined, '/audit/documents');

/** What the sign-in page says above its form: a problem (`bad`) or a plain note. */
type Message = { text: (t: Texts) => string; bad: boolean };

function form(c: Context, token: string, next: string, message?: Message) {
  const view = viewOf(c);
  const { t } = view;
  return page(
    view,
    t.signIn.title,
    html`${message === undefined ? '' : html`<p class="${message.bad ? 'bad' : 'note'}" role="${message.bad ? 'alert' : 'status'}">${message.text(t)}</p>`}
<form class="search" method="post" action="/audit/sign-in">
  ${tokenField(token)}
  <input type="hidden" name="next" value="${next}">
  <label>${t.signIn.key} <input type="password" name="key" autocomplete="off" required size="48"></label>
  <button class="primary" type="submit">${t.signIn.submit}</button>
</form>
<p class="note">${t.signIn.note}</p>`,
  );
}

const problem = (text: (t: Texts) => string): Message => ({ text, bad: true });

/** Why the session ended, in the reader's words: as the server found it, or as the address says (`?ended=`). */
export function endedMessage(why: SessionEnd | 'signed-out' | 'unknown', idleMs: number): Message {
  if (why === 'signed-out') return { text: (t) => t.signIn.signedOut, bad: false };
  if (why === 'key') return problem((t) => t.signIn.revoked);
  if (why === 'lifetime') return problem((t) => t.signIn.lifetime);
  if (why === 'idle') return problem((t) => t.signIn.idle(Math.round(idleMs / 60_000)));
  return problem((t) => t.signIn.ended);
}

/**
 * The sign-in form, saying why if told, keeping the page asked for (`next`). A form shown afresh gets a token
 * of its own (also in a cookie, which its post must bring back); one shown again after a refused post keeps
 * that post's token.
 */
export function signInPage(c: Context, options: { message?: Message; status?: 200 | 401 | 429; token?: string; next?: string } = {}): Promise<Response> {
  let token = options.token;
  if (token === undefined) {
    token = randomBytes(32).toString('base64url');
    c.header('Set-Cookie', formCookie(c, token), { append: true });
  }
  return sendPage(c, form(c, token, askedFor(options.next), options.message), options.status ?? 200);
}

/** What a sign-in needs beyond the company: the idle time of its sessions, and the failures counted so far. */
export interface SignInOptions {
  idleMs: number;
  failures: SignInFailures;
  /** Where each failed sign-in is told (one log line each), with the client's address. */
  onFailure: (failure: { client: string; reason: string }) => void;
}

/**
 * Checks the key posted once (the form's token already checked) and starts a session for an audit key, going on
 * to the page asked for; any other key is refused. An address with too many failures in the last minute is
 * refused before its key is looked at.
 */
export async function signIn(c: Context<WorkbenchEnv>, tb: Company, client: string, options: SignInOptions): Promise<Response> {
  const fields = c.get('form');
  const next = askedFor(fields.get('next'));
  const again = (message: Message, status: 401 | 429) => signInPage(c, { message, status, token: formTokenOf(c), next });
  const wait = options.failures.retryAfterS(client);
  if (wait !== undefined) {
    c.header('Retry-After', String(wait));
    return again(problem((t) => t.signIn.tooMany(wait)), 429);
  }
  const key = fields.get('key');
  const given = typeof key === 'string' ? key.trim() : '';
  const known = given === '' ? undefined : await tb.keys.authenticate(given);
  const found = known && (await tb.keys.activeById(known.id));
  if (!found || found.scope !== 'audit') {
    options.failures.record(client);
    options.onFailure({ client, reason: found ? `key ${found.id} is not an audit key` : 'unknown, revoked or expired key' });
    // Said alike: the answer must not tell a guesser that a key exists, of another scope.
    return again(problem((t) => t.signIn.unknownKey), 401);
  }
  const session = await tb.sessions.start(found, options.idleMs);
  const lastsS = Math.floor(session.lastsMs / 1000);
  c.header('Set-Cookie', sessionCookie(c, session.id, lastsS));
  c.header('Set-Cookie', endedByCookie(c, session.endedBy, lastsS), { append: true });
  // The form is spent.
  c.header('Set-Cookie', formCookie(c, undefined), { append: true });
  return c.redirect(next, 303);
}

/** Ends the session (its row deleted: the cookie, wherever copied, opens nothing) and clears the cookie. */
export async function signOut(c: Context<WorkbenchEnv>, tb: Company, id: string): Promise<Response> {
  await tb.sessions.end(id);
  c.header('Set-Cookie', sessionCookie(c, undefined));
  c.header('Set-Cookie', endedByCookie(c, undefined), { append: true });
  return c.redirect('/audit/sign-in?ended=signed-out', 303);
}
