import type { Context } from 'hono';
import { html } from 'hono/html';
import { z } from 'zod';
import { whoOf } from '../../audit/history.ts';
import { checkLinks } from '../../audit/verify-chain.ts';
import type { EventMeta } from '../../events/store.ts';
import { parseMoment } from '../../lib/clock.ts';
import type { Company } from '../../company.ts';
import { queryInt } from '../query.ts';
import { formValues, problems, readForm } from './forms.ts';
import { page, sendPage } from './layout.ts';
import { href, recordHref } from './links.ts';
import type { AuditSession } from './session.ts';
import { moscowTime } from './show.ts';

const PAGE_SIZE = 100;

const logQuery = z.object({
  after: queryInt(0).optional().default(0),
  stream: z.string().max(200).optional(),
  type: z.string().max(100).optional(),
  since: z
    .string()
    .refine((text) => parseMoment(text) !== undefined, 'must be a moment: YYYY-MM-DD HH:MM:SS (Moscow time), or with an offset')
    .transform((text) => new Date(parseMoment(text)!).toISOString())
    .optional(),
});

function logForm(values: Record<string, string>) {
  return html`<form class="search" method="get" action="/audit/log">
<label>After seq <input name="after" inputmode="numeric" size="8" value="${values.after ?? ''}"></label>
<label>Stream <input name="stream" size="18" placeholder="sale-187" value="${values.stream ?? ''}"></label>
<label>Event type <input name="type" size="18" placeholder="DocumentPosted" value="${values.type ?? ''}"></label>
<label>Since (Moscow time) <input name="since" size="20" placeholder="2026-11-22 00:00:00" value="${values.since ?? ''}"></label>
<button class="primary" type="submit">Show</button>
</form>`;
}

/** The log as stored, a page at a time, each event shown checked against the stored hash of the one before it. */
export async function logPage(c: Context, tb: Company, session: AuditSession): Promise<Response> {
  const form = readForm(c, logQuery);
  const values = formValues(c);
  const title = 'The event log';
  if (form.asked && !form.ok) return sendPage(c, page(title, html`${logForm(values)}${problems(form.errors)}`, session), 400);
  const { after, stream, type, since } = form.asked ? form.value : { after: 0, stream: undefined, type: undefined, since: undefined };
  const rows = await tb.audit.eventsAfter(after, PAGE_SIZE, { stream, type, since });
  const links = await checkLinks(rows, (seq) => tb.audit.hashAt(seq));
  const broken = links.filter((link) => !link.ok);
  const keyNames = new Map<number, string | undefined>();
  for (const row of rows) {
    const { keyId } = JSON.parse(row.meta) as EventMeta;
    if (keyId !== undefined && !keyNames.has(keyId)) keyNames.set(keyId, await tb.keys.nameOf(keyId));
  }
  const who = whoOf((id) => keyNames.get(id));
  const last = await tb.audit.lastSeq();
  const next = href('/audit/log', { ...values, after: rows.at(-1)?.seq ?? after });
  const checked =
    rows.length === 0
      ? html`<p>No event matches.</p>`
      : html`<p class="${broken.length === 0 ? 'ok' : 'bad'}" data-chain="${broken.length === 0 ? 'ok' : 'broken'}">${
          broken.length === 0
            ? `Each of the ${rows.length} events shown (seq ${rows[0].seq}–${rows.at(-1)!.seq}) hashes to its stored hash from the stored hash of the event before it.`
            : `${broken.length} of the ${rows.length} events shown fail: ${broken.map((b) => (b.ok ? '' : b.problem)).join('; ')}.`
        }</p>
<p class="note">Checked: each event shown, its columns and the stored hash of event seq − 1${stream ?? type ?? since ? ' (which the filter may hide)' : ''}. Not checked: the events before and after this page, nor whether the hash of the event before the first one shown is itself right. The whole chain is checked by <code>tradebook verify</code>; that the operator has not rewritten it since a head you hold, by your anchors (Anchors page).</p>`;
  return sendPage(
    c,
    page(
      title,
      html`${logForm(values)}<p class="note">The log holds ${last} events. Data is shown exactly as stored (money in kopecks, times in UTC), since that is what the hashes cover.</p>
${checked}
<table class="log"><thead><tr><th class="num">seq</th><th>recorded (Moscow)</th><th>stream</th><th>event</th><th>who</th><th>data</th><th>hash</th><th>chain</th></tr></thead>
<tbody>${rows.map((row, i) => {
        const link = links[i];
        return html`<tr${link.ok ? '' : html` class="broken"`} data-seq="${row.seq}"><td class="num">${row.seq}</td><td>${moscowTime(row.recorded_at)}</td>
<td><a href="${recordHref(row.stream)}">${row.stream}</a> v${row.stream_version}</td><td>${row.type} (schema ${row.schema_version})</td><td>${who(JSON.parse(row.meta))}</td>
<td class="mono">${row.data}</td><td class="mono" title="${row.hash}">${row.hash.slice(0, 12)}…</td><td>${link.ok ? html`<span class="ok">✓</span>` : html`<span class="bad">✗ ${link.problem}</span>`}</td></tr>`;
      })}</tbody></table>
${rows.length === PAGE_SIZE ? html`<div class="pager"><a href="${next}">next →</a></div>` : ''}`,
      session,
    ),
  );
}
