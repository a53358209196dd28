import { type Context, Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { Company } from '../../company.ts';
import { logAs } from '../access-log.ts';
import { BODY_LIMITS, takeBody } from '../body-limit.ts';
import { clientAddress, fromTrustedProxy } from '../client-address.ts';
import { requestHeader } from '../node-request.ts';
import type { TrustedProxies } from '../trusted-proxies.ts';
import type { AppEnv } from '../env.ts';
import { anchorsPage, checkAnchorsPage } from './anchors-page.ts';
import { contractorPage, findContractorsPage } from './contractors-pages.ts';
import { documentPage, findDocumentsPage } from './documents-pages.ts';
import { failedPage, notFoundPage } from './error-pages.ts';
import { switchLanguage } from './language.ts';
import { ICON, ICON_PATH, STYLESHEET, STYLESHEET_PATH, type View, viewOf } from './layout.ts';
import { href } from './links.ts';
import { logPage } from './log-page.ts';
import { recordPage } from './record-page.ts';
import { fromOwnPage } from './same-origin.ts';
import { endedByCookie, endedByOf, formTokenOf, sessionCookie, sessionIdOf } from './session.ts';
import { SignInFailures } from './sign-in-failures.ts';
import { type SignInOptions, endedMessage, signIn, signInPage, signOut } from './sign-in.ts';
import { statementCsvFile, statementPage, statementXlsxFile } from './statement-page.ts';
import type { WorkbenchEnv } from './workbench-env.ts';

type PageHandler = (c: Context<WorkbenchEnv>, view: View) => Promise<Response> | Response;

export interface WorkbenchOptions {
  /** A session unused this long has ended. */
  idleMs: number;
  /** The proxies whose X-Forwarded-For, -Host and -Proto are believed. */
  proxies: TrustedProxies;
  onSignInFailure: SignInOptions['onFailure'];
}

/**
 * The auditor's workbench at /audit: server-rendered pages over the log and the read tables, for audit keys
 * only, signed in once with a session cookie. Every page only reads; the posts (sign-in, sign-out, checking
 * anchors) must come from the workbench's own pages.
 */
export function workbenchRoutes(tb: Company, options: WorkbenchOptions): Hono<AppEnv> {
  const app = new Hono<WorkbenchEnv>({ strict: false });
  // A page that failed (the server's error handler has answered it) is told as a page, its status kept.
  app.use('/audit/*', async (c, next) => {
    // Whether the browser reached the server over HTTPS (the cookies' `Secure`): a trusted proxy says so, or the connection.
    c.set('overHttps', fromTrustedProxy(c, options.proxies) ? requestHeader(c, 'x-forwarded-proto') === 'https' : new URL(c.req.url).protocol === 'https:');
    await next();
    if (c.error !== undefined && c.res.status >= 500) c.res = await failedPage(c, c.res);
  });
  const signInOptions = { idleMs: options.idleMs, failures: new SignInFailures(tb.clock), onFailure: options.onSignInFailure };
  app.get(STYLESHEET_PATH, (c) => c.body(STYLESHEET, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }));
  app.get(ICON_PATH, (c) => c.body(ICON, 200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'public, max-age=3600' }));
  app.get('/audit/language/:lang', (c) => switchLanguage(c));
  app.get('/audit/sign-in', (c) => {
    const ended = c.req.query('ended');
    const message = ended === 'signed-out' || ended === 'unknown' ? endedMessage(ended, options.idleMs) : undefined;
    return signInPage(c, { message, next: c.req.query('next') });
  });
  app.post('/audit/sign-in', takeBody(BODY_LIMITS.form), fromOwnPage(options.proxies, formTokenOf), (c) =>
    signIn(c, tb, clientAddress(c, options.proxies), signInOptions),
  );

  // Every other page needs a session. Without one the browser is sent to sign in, and brought back to the page
  // it asked for; a session that has ended is told why, on the page asked for.
  const requireSession = createMiddleware<WorkbenchEnv>(async (c, next) => {
    const id = sessionIdOf(c);
    const check = id === undefined ? ({ ok: false, reason: 'none' } as const) : await tb.sessions.check(id, options.idleMs);
    if (!check.ok) {
      if (id !== undefined) c.header('Set-Cookie', sessionCookie(c, undefined), { append: true });
      const url = new URL(c.req.url);
      const asked = c.req.method === 'GET' ? `${url.pathname}${url.search}` : undefined;
      // Without its cookie, a session the browser dropped at its time is known by the cookie saying what ended it.
      const why = check.reason === 'ended' ? check.why : id === undefined ? endedByOf(c) : undefined;
      if (endedByOf(c) !== undefined) c.header('Set-Cookie', endedByCookie(c, undefined), { append: true });
      if (why !== undefined) return signInPage(c, { message: endedMessage(why, options.idleMs), status: 401, next: asked });
      // No session: to sign in, told it ended when the cookie named one the server no longer holds (swept after
      // it ended, or signed out with a copy kept).
      return c.redirect(href('/audit/sign-in', { ...(id !== undefined && { ended: 'unknown' }), ...(asked !== undefined && asked !== '/audit' && { next: asked }) }), 303);
    }
    const key = { id: check.session.keyId, scope: 'audit' } as const;
    c.set('session', check.session);
    c.set('key', key);
    logAs(c, key, check.session.idHash);
    await next();
  });
  const page = (handler: PageHandler) => [requireSession, (c: Context<WorkbenchEnv>) => handler(c, viewOf(c, c.get('session')))] as const;
  const sessionForm = fromOwnPage(options.proxies, (c) => c.get('session').formToken);

  app.post('/audit/sign-out', requireSession, takeBody(BODY_LIMITS.form), sessionForm, (c) => signOut(c, tb, sessionIdOf(c)!));
  app.get('/audit', ...page((c) => c.redirect('/audit/documents', 303)));
  app.get('/audit/documents', ...page((c, view) => findDocumentsPage(c, tb, view)));
  app.get('/audit/document/:type/:id', ...page((c, view) => documentPage(c, tb, view)));
  app.get('/audit/contractors', ...page((c, view) => findContractorsPage(c, tb, view)));
  app.get('/audit/contractor/:id', ...page((c, view) => contractorPage(c, tb, view)));
  app.get('/audit/record', ...page((c, view) => recordPage(c, tb, view)));
  app.get('/audit/statement', ...page((c, view) => statementPage(c, tb, view)));
  app.get('/audit/statement.csv', ...page((c, view) => statementCsvFile(c, tb, view)));
  app.get('/audit/statement.xlsx', ...page((c, view) => statementXlsxFile(c, tb, view)));
  app.get('/audit/log', ...page((c, view) => logPage(c, tb, view)));
  app.get('/audit/anchors', ...page((c, view) => anchorsPage(c, view)));
  app.post('/audit/anchors', requireSession, takeBody(BODY_LIMITS.anchors), sessionForm, (c) => checkAnchorsPage(c, tb, viewOf(c, c.get('session'))));
  // Any other address under /audit is a page of the workbench that does not exist, said as a page.
  app.all('/audit/*', ...page((c, view) => notFoundPage(c, view)));
  return app as unknown as Hono<AppEnv>;
}
