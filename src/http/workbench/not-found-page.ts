import type { Context } from 'hono';
import { html } from 'hono/html';
import { page, sendPage, type View } from './layout.ts';

/** An address under /audit that is no page: said as a page of the workbench, with the way out. */
export function notFoundPage(c: Context, view: View): Promise<Response> {
  const { t } = view;
  const signOut = new URL(c.req.url).pathname.replace(/\/$/, '') === '/audit/sign-out';
  return sendPage(c, page(view, t.errors.notFound, html`<p class="empty">${signOut ? t.errors.signOutGet : t.errors.notFoundText}</p>`), 404);
}
