import type { Context } from 'hono';
import { html } from 'hono/html';
import { page, sendPage, viewOf, type View } from './layout.ts';

/** An address under /audit that is no page: said as a page of the workbench, with the way out. */
export function notFoundPage(c: Context, view: View): Promise<Response> {
  const { t } = view;
  const signOut = new URL(c.req.url).pathname.replace(/\/$/, '') === '/audit/sign-out';
  return sendPage(c, page(view, t.errors.notFound, html`<p class="empty">${signOut ? t.errors.signOutGet : t.errors.notFoundText}</p>`), 404);
}

/**
 * A page that failed, told as a page of the workbench: the status the server gave the failure (503 when the
 * storage was busy or failing, with its Retry-After; 500 otherwise) and what to do, instead of the API's JSON.
 */
export async function failedPage(c: Context, failed: Response): Promise<Response> {
  const view = viewOf(c);
  const { t } = view;
  const busy = failed.status === 503;
  const answer = await sendPage(c, page(view, busy ? t.errors.busy : t.errors.failed, html`<p class="empty">${busy ? t.errors.busyText : t.errors.failedText}</p>`), busy ? 503 : 500);
  const retry = failed.headers.get('retry-after');
  if (retry !== null) answer.headers.set('Retry-After', retry);
  return answer;
}
