import { type Context, Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { Company } from '../../company.ts';
import { BODY_LIMITS, takeBody } from '../body-limit.ts';
import type { AppEnv } from '../env.ts';
import { anchorsPage, checkAnchorsPage } from './anchors-page.ts';
import { documentPage, findDocumentsPage } from './documents-pages.ts';
import { ICON, ICON_PATH, STYLESHEET, STYLESHEET_PATH } from './layout.ts';
import { logPage } from './log-page.ts';
import { recordPage } from './record-page.ts';
import { type AuditSession, sessionOf } from './session.ts';
import { signIn, signInPage, signOut } from './sign-in.ts';
import { statementCsvFile, statementPage } from './statement-page.ts';

type WorkbenchEnv = AppEnv & { Variables: { session: AuditSession } };
type PageHandler = (c: Context<WorkbenchEnv>, session: AuditSession) => Promise<Response> | Response;

/**
 * The auditor's workbench at /audit: server-rendered pages over the log and the read tables, for audit keys
 * only, signed in once with a session cookie. Every page only reads.
 */
export function workbenchRoutes(tb: Company): Hono<AppEnv> {
  const app = new Hono<WorkbenchEnv>({ strict: false });
  app.get(STYLESHEET_PATH, (c) => c.body(STYLESHEET, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }));
  app.get(ICON_PATH, (c) => c.body(ICON, 200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'public, max-age=3600' }));
  app.get('/audit/sign-in', (c) => signInPage(c));
  app.post('/audit/sign-in', takeBody(BODY_LIMITS.form), (c) => signIn(c, tb));
  app.post('/audit/sign-out', takeBody(BODY_LIMITS.form), (c) => signOut(c));

  // Every other page needs a session; without one the browser is sent to sign in.
  const requireSession = createMiddleware<WorkbenchEnv>(async (c, next) => {
    const check = await sessionOf(c, tb.keys, tb.clock());
    if (!check.ok) return check.reason === 'expired' ? signInPage(c, 'expired') : c.redirect('/audit/sign-in', 303);
    c.set('session', check.session);
    await next();
  });
  const page = (handler: PageHandler) => [requireSession, (c: Context<WorkbenchEnv>) => handler(c, c.get('session'))] as const;

  app.get('/audit', ...page((c) => c.redirect('/audit/documents', 303)));
  app.get('/audit/documents', ...page((c, session) => findDocumentsPage(c, tb, session)));
  app.get('/audit/document/:type/:id', ...page((c, session) => documentPage(c, tb, session)));
  app.get('/audit/record', ...page((c, session) => recordPage(c, tb, session)));
  app.get('/audit/statement', ...page((c, session) => statementPage(c, tb, session)));
  app.get('/audit/statement.csv', ...page((c, session) => statementCsvFile(c, tb, session)));
  app.get('/audit/log', ...page((c, session) => logPage(c, tb, session)));
  app.get('/audit/anchors', ...page((c, session) => anchorsPage(c, session)));
  app.post('/audit/anchors', requireSession, takeBody(BODY_LIMITS.anchors), (c) => checkAnchorsPage(c, tb, c.get('session')));
  return app as unknown as Hono<AppEnv>;
}
