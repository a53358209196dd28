import type { Context } from 'hono';
import { html } from 'hono/html';
import type { Company } from '../../company.ts';
import { Webhooks } from '../../feed/webhooks/store.ts';
import { page, scrolling, sendPage, type View } from './layout.ts';
import { moment } from './show.ts';

/** The webhooks and how each is doing, for auditors to read (never their secrets); `tradebook hooks` changes them. */
export async function hooksPage(c: Context, tb: Company, view: View): Promise<Response> {
  const { t } = view;
  const [hooks, end] = await Promise.all([new Webhooks(tb).list(), tb.audit.lastSeq()]);
  const columns = t.hooks.columns;
  const when = (ms: number | null) => (ms === null || ms === 0 ? '' : moment(ms));
  const table = html`<table class="hooks"><thead><tr><th class="num">${columns.id}</th><th>${columns.url}</th><th>${columns.types}</th><th>${columns.state}</th>
<th class="num">${columns.position}</th><th class="num">${columns.behind}</th><th>${columns.delivered}</th><th>${columns.failure}</th></tr></thead>
<tbody>${hooks.map(
    (hook) => html`<tr data-hook="${hook.id}"${hook.paused === null && hook.last_error === null ? '' : html` class="broken"`}><td class="num">${hook.id}</td><td class="mono">${hook.url}</td>
<td>${hook.types ?? t.hooks.everyChange}</td><td>${hook.paused === null ? html`<span class="ok">${t.hooks.active}</span>` : html`<span class="bad">${t.hooks.paused(hook.paused)}</span>`}</td>
<td class="num">${hook.position}</td><td class="num">${Math.max(0, end - hook.position)}</td><td>${when(hook.delivered_at)}</td>
<td>${hook.last_error === null ? '' : t.hooks.failing(hook.last_error, when(hook.failing_since), hook.attempts, hook.paused === null ? when(hook.next_attempt_at) : '')}</td></tr>`,
  )}</tbody></table>`;
  return sendPage(
    c,
    page(view, t.hooks.title, html`${hooks.length === 0 ? html`<p class="empty">${t.hooks.none}</p>` : scrolling(t.hooks.title, table)}<p class="note">${t.hooks.note}</p>`),
  );
}
