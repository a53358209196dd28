import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Context } from 'hono';
import { html } from 'hono/html';
import { z } from 'zod';
import type { HistoryEntry } from '../../audit/history.ts';
import type { LogPageQuery } from '../../audit/log-page-query.ts';
import { checkLinks } from '../../audit/verify-chain.ts';
import type { EventRow } from '../../events/store.ts';
import { parseMoment } from '../../lib/clock.ts';
import type { Company } from '../../company.ts';
import { queryInt } from '../query.ts';
import { formValues, problems, readForm } from './forms.ts';
import { entryChanges, historyIn } from './history-table.ts';
import type { Texts } from './texts.ts';
import { page, scrolling, sendPage, type View } from './layout.ts';
import { href, ownPageHref } from './links.ts';
import { fieldLabel, moscowTime } from './show.ts';

const PAGE_SIZE = 50;

const logQuery = z.object({
  order: z.enum(['newest', 'oldest']).optional().default('newest'),
  after: queryInt(0).optional(),
  before: queryInt(1).optional(),
  stream: z.string().max(200).optional(),
  type: z.string().max(100).optional(),
  since: z
    .string()
    .refine((text) => parseMoment(text) !== undefined, 'must be a moment')
    .transform((text) => new Date(parseMoment(text)!).toISOString())
    .optional(),
});
type LogAsked = z.output<typeof logQuery>;

function logForm({ t }: View, values: Record<string, string>) {
  const order = values.order === 'oldest' ? 'oldest' : 'newest';
  return html`<form class="search" method="get" action="/audit/log">
<label>${t.log.stream} <input name="stream" size="18" placeholder="sale-187, sale-" value="${values.stream ?? ''}"></label>
<label>${t.log.type} <input name="type" size="18" placeholder="DocumentPosted, document" value="${values.type ?? ''}"></label>
<label>${t.log.since} <input name="since" size="20" placeholder="${t.common.momentPlaceholder}" value="${values.since ?? ''}"></label>
<label>${t.log.order} <select name="order"><option value="newest"${order === 'newest' ? html` selected` : ''}>${t.log.newest}</option><option value="oldest"${order === 'oldest' ? html` selected` : ''}>${t.log.oldest}</option></select></label>
<button class="primary" type="submit">${t.common.show}</button>
</form>`;
}

/**
 * The page asked for, in the order shown: newest first reads back from `before` (or forward from `after`, for
 * the page before, turned round), oldest first the other way. One row more than the page tells whether more lie
 * beyond it.
 */
async function readPage(tb: Company, asked: LogAsked): Promise<{ rows: EventRow[]; more: boolean }> {
  const newest = asked.order === 'newest';
  // Reading against the order shown: toward the first page, from the cursor the previous link gave.
  const backwards = newest ? asked.after !== undefined : asked.before !== undefined;
  const query: LogPageQuery = { after: asked.after, before: asked.before, stream: asked.stream, type: asked.type, since: asked.since, descending: newest !== backwards, limit: PAGE_SIZE + 1 };
  const rows = await tb.audit.eventsPage(query);
  const more = rows.length > PAGE_SIZE;
  const page = rows.slice(0, PAGE_SIZE);
  return { rows: backwards ? page.reverse() : page, more };
}

/**
 * Each event's change as its record's history tells it (before → after): for each record on the page, the entries
 * of the versions the page shows, not its whole history.
 */
async function changesOf(tb: Company, t: Texts, rows: EventRow[]): Promise<Map<number, HistoryEntry>> {
  const versions = new Map<string, number[]>();
  for (const row of rows) versions.set(row.stream, [...(versions.get(row.stream) ?? []), row.stream_version]);
  const entries = new Map<number, HistoryEntry>();
  for (const [stream, shown] of versions) {
    // A turn of the event loop a record: a page of 50 records is otherwise one stretch of SQLite's synchronous reads.
    await nextTurn();
    for (const entry of await historyIn(tb, t, stream, shown)) entries.set(entry.seq, entry);
  }
  return entries;
}

/** What an event changed, in a few words: the fields it set, or that it made the record. */
function summaryOf({ t }: View, entry: HistoryEntry | undefined): string {
  if (entry === undefined) return '';
  const fields = Object.keys(entry.changes).map((field) => fieldLabel(t, field));
  if (entry.streamVersion === 1) return `${t.log.created}: ${fields.slice(0, 4).join(', ')}${fields.length > 4 ? ', …' : ''}`;
  return `${fields.slice(0, 5).join(', ')}${fields.length > 5 ? ` (${t.log.fieldsChanged(fields.length)})` : ''}`;
}

/** The log a page at a time, newest or oldest first, each event a line that opens to its changes, each checked against the stored hash of the one before it. */
export async function logPage(c: Context, tb: Company, view: View): Promise<Response> {
  const { t } = view;
  const form = readForm(c, logQuery);
  const values = formValues(c);
  if (form.asked && !form.ok) return sendPage(c, page(view, t.log.title, html`${logForm(view, values)}${problems(t, form.errors)}`), 400);
  const asked: LogAsked = form.asked && form.ok ? form.value : { order: 'newest' };
  const { rows, more } = await readPage(tb, asked);
  const [links, changes, last] = [await checkLinks(rows, (seq) => tb.audit.hashAt(seq)), await changesOf(tb, t, rows), await tb.audit.lastSeq()];
  const broken = links.filter((link) => !link.ok);
  const filtered = asked.stream !== undefined || asked.type !== undefined || asked.since !== undefined;

  const newest = asked.order === 'newest';
  const cursorless = Object.fromEntries(Object.entries(values).filter(([field]) => field !== 'after' && field !== 'before'));
  const at = (cursor: Record<string, string>) => href('/audit/log', { ...cursorless, order: asked.order, ...cursor });
  const onFirst = asked.after === undefined && asked.before === undefined;
  const [first, lastRow] = [rows[0], rows.at(-1)];
  // Toward the first page there is more whenever this page was reached by a cursor and came back full, or read backwards and found more.
  const backwards = newest ? asked.after !== undefined : asked.before !== undefined;
  const hasPrevious = !onFirst && (backwards ? more : true);
  const hasNext = backwards ? asked.after !== 0 || !newest : more;
  const pager =
    rows.length === 0
      ? ''
      : html`<nav class="pager" aria-label="${t.fields.page}">
${hasPrevious ? html`<a href="${at({})}">${t.common.first}</a> <a href="${at(newest ? { after: String(first.seq) } : { before: String(first.seq) })}" rel="prev">${t.common.previous}</a>` : ''}
${hasNext ? html`<a href="${at(newest ? { before: String(lastRow!.seq) } : { after: String(lastRow!.seq) })}" rel="next">${t.common.next}</a> <a href="${at(newest ? { after: '0' } : { before: String(last + 1) })}">${t.common.last}</a>` : ''}
</nav>`;

  const checked =
    rows.length === 0
      ? html`<p class="empty">${t.log.noMatch}</p>`
      : html`<p class="${broken.length === 0 ? 'ok' : 'bad'}" data-chain="${broken.length === 0 ? 'ok' : 'broken'}">${
          broken.length === 0
            ? t.log.chainOk(rows.length, Math.min(first.seq, lastRow!.seq), Math.max(first.seq, lastRow!.seq))
            : t.log.chainBroken(broken.length, rows.length, broken.map((b) => (b.ok ? '' : b.problem)).join('; '))
        }</p>
<p class="note">${t.log.checked(filtered)}</p>`;
  const columns = t.log.columns;
  const table = html`<table class="log"><thead><tr><th class="num">${columns.seq}</th><th>${columns.time}</th><th>${columns.who}</th><th>${columns.event}</th><th>${columns.record}</th><th>${columns.summary}</th><th>${columns.chain}</th></tr></thead>
<tbody>${rows.map((row, i) => {
    const link = links[i];
    const entry = changes.get(row.seq);
    return html`<tr${link.ok ? '' : html` class="broken"`} data-seq="${row.seq}"><td class="num">${row.seq}</td><td>${moscowTime(row.recorded_at)}</td><td>${entry?.who ?? ''}</td><td>${row.type}</td>
<td><a href="${ownPageHref(row.stream)}">${row.stream}</a></td>
<td class="summary"><details><summary>${summaryOf(view, entry)}</summary>${entry === undefined ? '' : entryChanges(t, entry)}
<p class="note">${t.log.asStored}:</p><pre class="mono">${row.data}</pre><p class="mono">${t.log.hash} ${row.hash}</p></details></td>
<td>${link.ok ? html`<span class="ok" aria-label="ok">✓</span>` : html`<span class="bad">✗ ${link.problem}</span>`}</td></tr>`;
  })}</tbody></table>`;
  return sendPage(
    c,
    page(view, t.log.title, html`${logForm(view, values)}<p class="note">${t.log.holds(last)}</p>${checked}${rows.length === 0 ? '' : scrolling(t.log.title, table)}${pager}`),
  );
}
