import type { Context } from 'hono';
import { html } from 'hono/html';
import { z } from 'zod';
import { type FoldedRecord, foldRecord } from '../../audit/record-fold.ts';
import { DOCUMENT_TYPES, type DocumentType } from '../../events/documents.ts';
import { formatMoscow, parseMoment } from '../../lib/clock.ts';
import type { Company } from '../../company.ts';
import { formValues, problems, readForm } from './forms.ts';
import { page, sendPage } from './layout.ts';
import { documentHref } from './links.ts';
import type { AuditSession } from './session.ts';
import { fieldText, moscowTime } from './show.ts';

const recordQuery = z.object({
  stream: z.string().regex(/^[a-z-]+-\d+$|^contractor-status-.+$/, 'must name a record, e.g. product-42, contractor-7, sale-187'),
  at: z
    .string()
    .refine((text) => parseMoment(text) !== undefined, 'must be a moment: YYYY-MM-DD HH:MM:SS (Moscow time), or with an offset')
    .transform((text) => parseMoment(text)!)
    .optional(),
});

function recordForm(values: Record<string, string>) {
  return html`<form class="search" method="get" action="/audit/record">
<label>Record <input name="stream" size="24" placeholder="product-42, contractor-7, sale-187" value="${values.stream ?? ''}" required></label>
<label>As of (Moscow time) <input name="at" size="22" placeholder="2026-11-22 12:00:00" value="${values.at ?? ''}"></label>
<button class="primary" type="submit">Show</button>
</form>`;
}

const folded = (record: FoldedRecord, total: number) =>
  record.lastEvent === undefined
    ? 'no event yet: the record did not exist'
    : `${record.events} of ${total} events, the last #${record.lastEvent.seq} ${record.lastEvent.type} at ${moscowTime(record.lastEvent.recordedAt)}`;

/** A record as its events left it at a moment, beside its state now; the fields that differ are marked. */
export async function recordPage(c: Context, tb: Company, session: AuditSession): Promise<Response> {
  const form = readForm(c, recordQuery);
  const values = formValues(c);
  const title = 'A record as of a moment';
  const explain = html`<p class="note">A record's own fields, folded from its events up to the moment: money in rubles, times in Moscow time.
Figures derived from other records (a document's paid and tree, a contractor's balance) are not among them: a contractor's balance at a date is the closing balance of its statement.</p>`;
  if (!form.asked) return sendPage(c, page(title, html`${recordForm(values)}${explain}`, session));
  if (!form.ok) return sendPage(c, page(title, html`${recordForm(values)}${problems(form.errors)}`, session), 400);
  const { stream, at = tb.clock() } = form.value;
  const events = await tb.audit.streamEvents(stream);
  if (events.length === 0) return sendPage(c, page(title, html`${recordForm(values)}<p class="bad">There is no record ${stream}.</p>`, session), 404);
  const then = foldRecord(events, at);
  const now = foldRecord(events);
  const fields = [...new Set([...Object.keys(then.fields ?? {}), ...Object.keys(now.fields ?? {})])];
  const differs = (field: string) => fieldText(field, then.fields?.[field]) !== fieldText(field, now.fields?.[field]);
  const [, kind, id] = /^([a-z]+)-(\d+)$/.exec(stream) ?? [];
  return sendPage(
    c,
    page(
      `${stream} as of ${formatMoscow(at)}`,
      html`${recordForm(values)}${explain}
<p>As of ${formatMoscow(at)}: ${folded(then, events.length)}.<br>Now: ${folded(now, events.length)}.
${DOCUMENT_TYPES.includes(kind as DocumentType) ? html` <a href="${documentHref(kind, Number(id))}">Its document page</a>.` : ''}</p>
<table class="as-of"><thead><tr><th>field</th><th>as of ${formatMoscow(at)}</th><th>now</th></tr></thead>
<tbody>${fields.map((field) => html`<tr${differs(field) ? html` class="changed"` : ''} data-field="${field}"><th>${field}</th><td>${fieldText(field, then.fields?.[field])}</td><td>${fieldText(field, now.fields?.[field])}</td></tr>`)}</tbody></table>`,
      session,
    ),
  );
}
