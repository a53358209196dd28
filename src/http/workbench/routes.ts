import { type Context, Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { Company } from '../../company.ts';
import type { AppEnv } from '../env.ts';
import { anchorsPage, checkAnchorsPage } from './anchors-page.ts';
import { contractorPage, findContractorsPage } from './contractors-pages.ts';
import { documentPage, findDocumentsPage } from './documents-pages.ts';
import { failedPage, notFoundPage } from './error-pages.ts';
import { switchLanguage } from './language.ts';
import { ICON, ICON_PATH, STYLESHEET, STYLESHEET_PATH, type View, viewOf } from './layout.ts';
import { logPage } from './log-page.ts';
import { recordPage } from './record-page.ts';
import { type AuditSession, sessionOf } from './session.ts';
import { signIn, signInPage, signOut } from './sign-in.ts';
import { statementCsvFile, statementPage, statementXlsxFile } from './statement-page.ts';

type WorkbenchEnv = AppEnv & { Variables: { session: AuditSession } };
type PageHandler = (c: Context<WorkbenchEnv>, view: View) => Promise<Response> | Response;

/**
 * The auditor's workbench at /audit: server-rendered pages over the log and the read tables, for audit keys
 * only, signed in once with a session cookie. Every page only reads.
 */
export function workbenchRoutes(tb: Company): Hono<AppEnv> {
  const app = new Hono<WorkbenchEnv>({ strict: false });
  // A page that failed (the server's error handler has answered it) is told as a page, its status kept.
  app.use('/audit/*', async (c, next) => {
    await next();
    if (c.error !== undefined && c.res.status >= 500) c.res = await failedPage(c, c.res);
  });
  app.get(STYLESHEET_PATH, (c) => c.body(STYLESHEET, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }));
  app.get(ICON_PATH, (c) => c.body(ICON, 200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'public, max-age=3600' }));
  app.get('/audit/language/:lang', (c) => switchLanguage(c));
  app.get('/audit/sign-in', (c) => signInPage(c));
  app.post('/audit/sign-in', (c) => signIn(c, tb));
  app.post('/audit/sign-out', (c) => signOut(c));

  // Every other page needs a session; without one the browser is sent to sign in, told why when one has ended,
  // and brought back to the page it asked for.
  const requireSession = createMiddleware<WorkbenchEnv>(async (c, next) => {
    const check = await sessionOf(c, tb.keys, tb.clock());
    if (!check.ok) {
      const url = new URL(c.req.url);
      const asked = c.req.method === 'GET' ? `${url.pathname}${url.search}` : undefined;
      if (check.reason === 'expired') return signInPage(c, 'expired', asked);
      const query = new URLSearchParams({ ...(check.reason === 'invalid' && { ended: '1' }), ...(asked !== undefined && asked !== '/audit' && { next: asked }) });
      return c.redirect(`/audit/sign-in${query.size === 0 ? '' : `?${query}`}`, 303);
    }
    c.set('session', check.session);
    await next();
  });
  const page = (handler: PageHandler) => [requireSession, (c: Context<WorkbenchEnv>) => handler(c, viewOf(c, c.get('session')))] as const;

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
  app.post('/audit/anchors', ...page((c, view) => checkAnchorsPage(c, tb, view)));
  // Any other address under /audit is a page of the workbench that does not exist, said as a page.
  app.all('/audit/*', ...page((c, view) => notFoundPage(c, view)));
  return app as unknown as Hono<AppEnv>;
}
