import type { Context } from 'hono';
import { html } from 'hono/html';
import { z } from 'zod';
import { foldVersions } from '../../audit/history.ts';
import type { FoldedRecord } from '../../audit/record-fold.ts';
import { parseMoment } from '../../lib/clock.ts';
import type { Company } from '../../company.ts';
import { formValues, problems, readForm } from './forms.ts';
import { page, scrolling, sendPage, type View } from './layout.ts';
import { ownPageHref } from './links.ts';
import { fieldLabel, leafName, leaves, moment, moscowTime, storedText } from './show.ts';

const recordQuery = z.object({
  stream: z.string().regex(/^[a-z-]+-\d+$|^contractor-status-.+$/, 'must name a record, e.g. product-42, contractor-7, sale-187'),
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
    : t.record.folded(record.events, total, record.lastEvent.seq, record.lastEvent.type, moscowTime(record.lastEvent.recordedAt));

/** A record's fields flattened to their leaves (a document's lines and company field by field). */
const fieldValues = (fields: Record<string, unknown> | undefined) => new Map(leaves(fields ?? {}));

type Referenced = 'category' | 'brand' | 'contractor' | 'product';

/** Fields that name another record by its id, and that record's kind. */
const REFERENCES: Record<string, Referenced> = { categoryId: 'category', brandId: 'brand', contractorId: 'contractor', pr_id: 'product' };

/** The kind of record a field of a record of `kind` names, if it names one: a `parent` is one of the record's own kind. */
const referenceOf = (kind: string, path: string): Referenced | undefined =>
  leafName(path) === 'parent' ? (kind === 'category' || kind === 'product' ? kind : undefined) : REFERENCES[leafName(path)];

/** The names of the records these fields name (`brand-3` → its name now), each read by its id. */
async function referencedNames(tb: Company, recordKind: string, fields: Map<string, unknown>): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const [path, value] of fields) {
    const kind = referenceOf(recordKind, path);
    if (kind === undefined || typeof value !== 'number' || value < 1 || names.has(`${kind}-${value}`)) continue;
    const named =
      kind === 'category'
        ? await tb.categories.byId(value)
        : kind === 'brand'
          ? await tb.brands.byId(value)
          : kind === 'contractor'
            ? await tb.contractors.byId(value)
            : await tb.products.byId(value);
    if (named?.name) names.set(`${kind}-${value}`, named.name);
  }
  return names;
}

/** A field's value as a cell: one naming another record is that record's name, linked to its page. */
function cell(recordKind: string, path: string, value: unknown, names: Map<string, string>) {
  const kind = referenceOf(recordKind, path);
  const stream = `${kind}-${String(value)}`;
  if (kind === undefined || typeof value !== 'number' || !names.has(stream)) return storedText(leafName(path), value);
  return html`<a href="${ownPageHref(stream)}">${names.get(stream)}</a> (${value})`;
}

/** A record as its events left it at a moment, beside its state now; the fields that differ are marked. */
export async function recordPage(c: Context, tb: Company, view: View): Promise<Response> {
  const { t } = view;
  const form = readForm(c, recordQuery);
  const values = formValues(c);
  const explain = html`<p class="note">${t.record.explain}</p>`;
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
  const text = (values: Map<string, unknown>, field: string) => (values.has(field) ? storedText(leafName(field), values.get(field)) : '');
  const differs = (field: string) => text(then, field) !== text(now, field);
  const kind = stream.slice(0, stream.lastIndexOf('-'));
  const names = await referencedNames(tb, kind, new Map([...then, ...now]));
  const shown = (values: Map<string, unknown>, field: string) => (values.has(field) ? cell(kind, field, values.get(field), names) : '');
  const when = moment(at);
  const own = ownPageHref(stream);
  return sendPage(
    c,
    page(
      view,
      t.record.titleOf(stream, when),
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
