import { type Context, Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { Company } from '../../company.ts';
import { BODY_LIMITS, takeBody } from '../body-limit.ts';
import { clientAddress } from '../client-address.ts';
import type { AppEnv } from '../env.ts';
import { anchorsPage, checkAnchorsPage } from './anchors-page.ts';
import { documentPage, findDocumentsPage } from './documents-pages.ts';
import { ICON, ICON_PATH, STYLESHEET, STYLESHEET_PATH } from './layout.ts';
import { logPage } from './log-page.ts';
import { recordPage } from './record-page.ts';
import { fromOwnPage } from './same-origin.ts';
import { type AuditSession, formTokenOf, sessionCookie, sessionIdOf } from './session.ts';
import { SignInFailures } from './sign-in-failures.ts';
import { type SignInOptions, signIn, signInPage, signOut } from './sign-in.ts';
import { statementCsvFile, statementPage } from './statement-page.ts';
import type { WorkbenchEnv } from './workbench-env.ts';

type PageHandler = (c: Context<WorkbenchEnv>, session: AuditSession) => Promise<Response> | Response;

export interface WorkbenchOptions {
  /** A session unused this long has ended. */
  idleMs: number;
  /** Whether client addresses come from a trusted proxy's X-Forwarded-For (and the host from X-Forwarded-Host). */
  trustProxy: boolean;
  onSignInFailure: SignInOptions['onFailure'];
}

/**
 * The auditor's workbench at /audit: server-rendered pages over the log and the read tables, for audit keys
 * only, signed in once with a session cookie. Every page only reads; the posts (sign-in, sign-out, checking
 * anchors) must come from the workbench's own pages.
 */
export function workbenchRoutes(tb: Company, options: WorkbenchOptions): Hono<AppEnv> {
  const app = new Hono<WorkbenchEnv>({ strict: false });
  const signInOptions = { idleMs: options.idleMs, failures: new SignInFailures(tb.clock), onFailure: options.onSignInFailure };
  app.get(STYLESHEET_PATH, (c) => c.body(STYLESHEET, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }));
  app.get(ICON_PATH, (c) => c.body(ICON, 200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'public, max-age=3600' }));
  app.get('/audit/sign-in', (c) => signInPage(c));
  app.post('/audit/sign-in', takeBody(BODY_LIMITS.form), fromOwnPage(options.trustProxy, formTokenOf), (c) =>
    signIn(c, tb, clientAddress(c, options.trustProxy), signInOptions),
  );

  // Every other page needs a session; without one the browser is sent to sign in, and an ended one is told so.
  const requireSession = createMiddleware<WorkbenchEnv>(async (c, next) => {
    const id = sessionIdOf(c);
    const check = id === undefined ? ({ ok: false, reason: 'none' } as const) : await tb.sessions.check(id, options.idleMs);
    if (!check.ok) {
      if (id !== undefined) c.header('Set-Cookie', sessionCookie(c, undefined), { append: true });
      return check.reason === 'ended' ? signInPage(c, 'Your session has ended: sign in again.', 401) : c.redirect('/audit/sign-in', 303);
    }
    c.set('session', check.session);
    c.set('key', { id: check.session.keyId, scope: 'audit' });
    await next();
  });
  const page = (handler: PageHandler) => [requireSession, (c: Context<WorkbenchEnv>) => handler(c, c.get('session'))] as const;
  const sessionForm = fromOwnPage(options.trustProxy, (c) => c.get('session').formToken);

  app.post('/audit/sign-out', requireSession, takeBody(BODY_LIMITS.form), sessionForm, (c) => signOut(c, tb, sessionIdOf(c)!));
  app.get('/audit', ...page((c) => c.redirect('/audit/documents', 303)));
  app.get('/audit/documents', ...page((c, session) => findDocumentsPage(c, tb, session)));
  app.get('/audit/document/:type/:id', ...page((c, session) => documentPage(c, tb, session)));
  app.get('/audit/record', ...page((c, session) => recordPage(c, tb, session)));
  app.get('/audit/statement', ...page((c, session) => statementPage(c, tb, session)));
  app.get('/audit/statement.csv', ...page((c, session) => statementCsvFile(c, tb, session)));
  app.get('/audit/log', ...page((c, session) => logPage(c, tb, session)));
  app.get('/audit/anchors', ...page((c, session) => anchorsPage(c, session)));
  app.post('/audit/anchors', requireSession, takeBody(BODY_LIMITS.anchors), sessionForm, (c) => checkAnchorsPage(c, tb, c.get('session')));
  return app as unknown as Hono<AppEnv>;
}
