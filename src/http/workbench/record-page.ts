import type { Context } from 'hono';
import { html } from 'hono/html';
import { z } from 'zod';
import { foldVersions } from '../../audit/history.ts';
import type { FoldedRecord } from '../../audit/record-fold.ts';
import { DOCUMENT_TYPES } from '../../records/document/events.ts';
import { parseMoment } from '../../lib/clock.ts';
import type { Company } from '../../company.ts';
import { formValues, problems, readForm } from './forms.ts';
import { page, scrolling, sendPage, type View } from './layout.ts';
import { href, ownPageHref } from './links.ts';
import { answerPick, pickRecord } from './pick.ts';
import { eventName, fieldLabel, leaves, moment, moscowTime, storedText } from './show.ts';
import { kindOf, namedRecord, recordNames, referencedStream, shownValue } from './record-names.ts';

/** A record's key: its kind and id (`sale-187`), or a contractor status's name; any other text names a record as people know it. */
const RECORD_KEY = new RegExp(`^(${['product', 'category', 'brand', 'contractor', 'import', ...DOCUMENT_TYPES].join('|')})-\\d+$|^contractor-status-.+$|^company$`);

const recordQuery = z.object({
  stream: z.string().regex(RECORD_KEY, 'must name a record, e.g. product-42, contractor-7, sale-187, company'),
  at: z
    .string()
    .refine((text) => parseMoment(text) !== undefined, 'must be a moment: YYYY-MM-DD HH:MM:SS (Moscow time), or with an offset')
    .transform((text) => parseMoment(text)!)
    .optional(),
});

function recordForm({ t }: View, values: Record<string, string>) {
  return html`<form class="search" method="get" action="/audit/record">
<label>${t.record.stream} <input name="stream" size="24" placeholder="${t.record.streamPlaceholder}" value="${values.stream ?? ''}" required></label>
<label>${t.record.at} <input name="at" size="22" placeholder="${t.common.momentPlaceholder}" value="${values.at ?? ''}"></label>
<button class="primary" type="submit">${t.common.show}</button>
</form>`;
}

const folded = ({ t }: View, record: FoldedRecord, total: number) =>
  record.lastEvent === undefined
    ? t.record.notYet
    : t.record.folded(record.events, total, record.lastEvent.seq, eventName(t, record.lastEvent.type), moscowTime(record.lastEvent.recordedAt));

/** A record's fields flattened to their leaves (a document's lines and company field by field). */
const fieldValues = (fields: Record<string, unknown> | undefined) => new Map(leaves(fields ?? {}));

/** A record as its events left it at a moment, beside its state now; the fields that differ are marked. */
export async function recordPage(c: Context, tb: Company, view: View): Promise<Response> {
  const { t } = view;
  const values = formValues(c);
  const explain = html`<p class="note">${t.record.explain}</p>`;
  // A record named as people know it (a name, INN, phone, document number or SKU): the one found, or a list to pick from.
  const typed = values.stream?.trim();
  if (typed !== undefined && !RECORD_KEY.test(typed)) {
    const pick = await pickRecord(tb, t, typed);
    return answerPick(c, view, typed, pick, (record) => href('/audit/record', { ...values, stream: record.stream }), (list) => page(view, t.record.title, html`${recordForm(view, values)}${list}`));
  }
  const form = readForm(c, recordQuery);
  if (!form.asked) return sendPage(c, page(view, t.record.title, html`${recordForm(view, values)}${explain}`));
  if (!form.ok) return sendPage(c, page(view, t.record.title, html`${recordForm(view, values)}${problems(t, form.errors)}`), 400);
  const { stream, at = tb.clock() } = form.value;
  const read = (from: number, to: number) => tb.audit.streamVersions(stream, from, to);
  const thenRecord = await foldVersions(read, Number.MAX_SAFE_INTEGER, at);
  // Now goes on from then: the events up to the moment are folded once.
  const nowRecord = await foldVersions(read, Number.MAX_SAFE_INTEGER, Infinity, thenRecord);
  const length = nowRecord.events;
  if (length === 0) return sendPage(c, page(view, t.record.title, html`${recordForm(view, values)}<p class="empty">${t.record.noSuch(stream)}</p>`), 404);
  const [then, now] = [fieldValues(thenRecord.fields), fieldValues(nowRecord.fields)];
  const fields = [...new Set([...then.keys(), ...now.keys()])];
  const text = (values: Map<string, unknown>, field: string) => (values.has(field) ? storedText(t, field, values.get(field)) : '');
  const differs = (field: string) => text(then, field) !== text(now, field);
  const kind = kindOf(stream);
  const referenced = [...then, ...now].flatMap(([path, value]) => referencedStream(kind, path, value) ?? []);
  const names = await recordNames(tb, t, [stream, ...referenced]);
  const shown = (values: Map<string, unknown>, field: string) => (values.has(field) ? shownValue(t, kind, field, values.get(field), names) : '');
  const when = moment(at);
  const own = ownPageHref(stream);
  return sendPage(
    c,
    page(
      view,
      t.record.titleOf(namedRecord(names, stream), when),
      html`${recordForm(view, values)}${explain}
<p>${t.record.asOfLine(when, folded(view, thenRecord, length))}<br>${t.record.nowLine(folded(view, nowRecord, length))}
${own.startsWith('/audit/record') ? '' : html` <a href="${own}">${t.record.documentPage}</a>.`}</p>
${scrolling(
  t.record.title,
  html`<table class="as-of"><thead><tr><th>${t.record.field}</th><th>${t.record.then(when)}</th><th>${t.record.now}</th></tr></thead>
<tbody>${fields.map((field) => html`<tr${differs(field) ? html` class="changed"` : ''} data-field="${field}"><th>${fieldLabel(t, field)} <code>${field}</code></th><td>${shown(then, field)}</td><td>${shown(now, field)}</td></tr>`)}</tbody></table>`,
)}`,
    ),
  );
}
