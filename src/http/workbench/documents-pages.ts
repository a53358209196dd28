import type { Context } from 'hono';
import { html } from 'hono/html';
import { z } from 'zod';
import { readCompanyDetails } from '../../audit/company-details.ts';
import { paymentsOf } from '../../audit/paid.ts';
import { calendarDate } from '../../lib/validation.ts';
import { DOCUMENT_TYPES, type DocumentType } from '../../records/document/events.ts';
import { fromKopecks } from '../../lib/money.ts';
import { documentName } from '../../projections/documents/views.ts';
import type { Company } from '../../company.ts';
import { queryInt } from '../query.ts';
import { documentQuery } from '../routes/audit.ts';
import { partyLine } from './act.ts';
import { DOCUMENT_CURSOR, dateInput, formProblem, formValues, problems, readForm } from './forms.ts';
import { historyPageIn, historyTable } from './history-table.ts';
import { answerTypedContractor, chosenContractor, contractorInput } from './pick.ts';
import { page, scrolling, sendPage, type View } from './layout.ts';
import { documentHref, href, recordHref, statementHref } from './links.ts';
import { contractorLink, dateValue, day, documentLink, fieldLabel, leaves, moscowText, rubles, statusName, storedText, typeName } from './show.ts';
import type { Texts } from './texts.ts';
import { type TreeNode, treeDocuments, treeSvg } from './tree-svg.ts';

const PAGE_SIZE = 50;

/** A document as a page's cursor names it: `sale-187`. */
const documentCursor = () =>
  z
    .string()
    .max(40)
    .transform((text, ctx) => {
      const [type, id] = [text.slice(0, text.lastIndexOf('-')), Number(text.slice(text.lastIndexOf('-') + 1))];
      if ((DOCUMENT_TYPES as readonly string[]).includes(type) && Number.isSafeInteger(id) && id >= 1) return { type: type as DocumentType, id };
      ctx.addIssue({ code: 'custom', message: DOCUMENT_CURSOR });
      return z.NEVER;
    });

const findQuery = z.object({
  type: z.enum(DOCUMENT_TYPES, { error: `must be one of ${DOCUMENT_TYPES.join(', ')}` }).optional(),
  id: queryInt(1).optional(),
  number: z.string().max(200, 'must be at most 200 characters').optional(),
  contractor: queryInt(1).optional(),
  dateFrom: calendarDate().optional(),
  dateTo: calendarDate().optional(),
  status: z.enum(['0', '1'], { error: 'must be 0 or 1' }).transform(Number).optional(),
  after: documentCursor().optional(),
  before: documentCursor().optional(),
});

/** A document as the API lists it: the fields every page shows. */
export interface ListedDocument {
  id: number;
  type: DocumentType;
  name?: string;
  status: number;
  number: string | null;
  date: string;
  contractor: { id: number; name: string | null; inn?: string | null };
  sum: number;
  paid?: number;
  tree: TreeNode | TreeNode[];
  [field: string]: unknown;
}

const selected = (value: string | undefined, option: string) => (value === option ? html` selected` : '');

function findForm(view: View, values: Record<string, string>, contractor: string | undefined) {
  const { t } = view;
  const f = t.fields;
  return html`<form class="search" method="get" action="/audit/documents">
<label>${f.type} <select name="type"><option value="">${t.documents.any}</option>${DOCUMENT_TYPES.map((type) => html`<option value="${type}"${selected(values.type, type)}>${t.types[type]}</option>`)}</select></label>
<label>${f.id} <input name="id" inputmode="numeric" size="8" value="${values.id ?? ''}"></label>
<label>${f.number} <input name="number" size="12" value="${values.number ?? ''}"></label>
${contractorInput(view, values, contractor)}
<label>${f.dateFrom} ${dateInput(t, 'dateFrom', dateValue(values.dateFrom))}</label>
<label>${f.dateTo} ${dateInput(t, 'dateTo', dateValue(values.dateTo))}</label>
<label>${f.status} <select name="status"><option value="">${t.documents.any}</option><option value="1"${selected(values.status, '1')}>${t.status.posted}</option><option value="0"${selected(values.status, '0')}>${t.status.notPosted}</option></select></label>
<button class="primary" type="submit">${t.common.find}</button>
</form>`;
}

/** Documents as a table, each linked to its page and its contractor to theirs. */
export function documentsTable({ t }: View, found: ListedDocument[]) {
  const columns = t.documents.columns;
  return scrolling(
    t.documents.title,
    html`<table class="results">
<thead><tr><th>${columns.document}</th><th>${columns.number}</th><th>${columns.date}</th><th>${columns.contractor}</th><th class="num">${columns.sum}</th><th class="num">${columns.paid}</th><th>${columns.status}</th></tr></thead>
<tbody>${found.map(
      (d) => html`<tr><td>${documentLink(d.type, d.id, t.document.listed(typeName(t, d.type), d.id))}</td><td>${d.number ?? ''}</td><td>${day(d.date)}</td><td>${contractorLink(d.contractor.id, d.contractor.name)}</td>
<td class="num">${rubles(d.sum)}</td><td class="num">${d.paid === undefined ? '' : rubles(d.paid)}</td><td>${statusName(t, d.status)}</td></tr>`,
    )}</tbody></table>`,
  );
}

/** Find a document by type and id (straight to its page), or list those matching a number, contractor, dates and status. */
export async function findDocumentsPage(c: Context, tb: Company, view: View): Promise<Response> {
  const { t } = view;
  const values = formValues(c);
  const title = t.documents.title;
  const note = html`<p class="note">${t.documents.note}</p>`;
  // A contractor named as typed: its documents, or a list to pick it from.
  const typed = await answerTypedContractor(c, tb, view, '/audit/documents', values, (list) => page(view, title, html`${findForm(view, values, undefined)}${list}`));
  if (typed !== undefined) return typed;
  const form = readForm(c, findQuery);
  const shownForm = findForm(view, values, await chosenContractor(tb, values));
  if (!form.asked) return sendPage(c, page(view, title, html`${shownForm}${note}`));
  if (!form.ok) return sendPage(c, page(view, title, html`${shownForm}${problems(t, form.errors)}`), 400);
  const { type, id, number, contractor, dateFrom, dateTo, status, after, before } = form.value;
  if (id !== undefined) {
    if (type === undefined) return sendPage(c, page(view, title, html`${shownForm}${formProblem(t, t.problems.typeWithId)}`), 400);
    return c.redirect(documentHref(type, id), 303);
  }
  // Newest first; a `before` cursor reads toward the first page (oldest first) and is turned round.
  const from = after ? { ...after, toward: 'older' as const } : before ? { ...before, toward: 'newer' as const } : undefined;
  const rows = await tb.documents.search({ type, number, contractorId: contractor, dateFrom, dateTo, status }, PAGE_SIZE + 1, from);
  const more = rows.length > PAGE_SIZE;
  const read = rows.slice(0, PAGE_SIZE).map((json) => JSON.parse(json) as ListedDocument);
  const found = from?.toward === 'newer' ? read.reverse() : read;
  const cursorless = Object.fromEntries(Object.entries(values).filter(([field]) => field !== 'after' && field !== 'before'));
  const at = (cursor: Record<string, string>) => href('/audit/documents', { ...cursorless, ...cursor });
  const named = (d: ListedDocument) => `${d.type}-${d.id}`;
  const [hasNewer, hasOlder] = from?.toward === 'newer' ? [more, true] : [from !== undefined, more];
  const pager = html`<nav class="pager" aria-label="${t.fields.page}">${hasNewer ? html`<a href="${at({})}">${t.common.first}</a> <a href="${at({ before: named(found[0]) })}" rel="prev">${t.common.previous}</a>` : ''}
${hasOlder ? html`<a href="${at({ after: named(found.at(-1)!) })}" rel="next">${t.common.next}</a>` : ''}</nav>`;
  const results = found.length === 0 ? html`<p class="empty">${t.documents.noMatch}</p>` : html`${documentsTable(view, found)}${pager}`;
  return sendPage(c, page(view, title, html`${shownForm}${note}${results}`));
}

/** The document's display name: money documents carry theirs, documents of lines are named by type. */
const nameOf = (d: ListedDocument) => d.name ?? documentName(d.type, false);

const dd = (label: string, value: unknown) => (value === null || value === undefined || value === '' ? '' : html`<dt>${label}</dt><dd>${typeof value === 'object' ? value : String(value)}</dd>`);

interface Named {
  id: number;
  name: string | null;
  [field: string]: unknown;
}

/** A nested record (stock, user, company: `field`) as one line: its name, id and the rest of its fields, in the reader's words. */
const namedText = (t: Texts, field: string, named: Named | null | undefined) =>
  named
    ? `${named.name ?? ''} (${t.document.inBase(named.id)})${leaves(named)
        .filter(([path, value]) => !['id', 'name'].includes(path) && value !== null && value !== undefined)
        .map(([path, value]) => `, ${fieldLabel(t, path)}: ${storedText(t, `${field}.${path}`, value)}`)
        .join('')}`
    : undefined;

function summary(view: View, d: ListedDocument) {
  const { t } = view;
  const f = t.document.fields;
  const contractor = d.contractor;
  const year = d.date.slice(0, 4);
  return html`<dl class="fields">
${dd(f.name, nameOf(d))}${dd(f.type, html`${typeName(t, d.type)} <code>${d.type}</code>`)}${dd(f.id, d.id)}${dd(f.number, d.number)}${dd(f.date, day(d.date))}
<dt>${f.status}</dt><dd>${statusName(t, d.status)}</dd>
<dt>${f.contractor}</dt><dd>${contractorLink(contractor.id, contractor.name)}${contractor.inn ? `, ${t.statement.inn} ${contractor.inn}` : ''} · <a href="${statementHref(contractor.id, year)}">${t.document.statementFor(year)}</a></dd>
<dt>${f.sum}</dt><dd>${rubles(d.sum)}</dd>
${d.paid === undefined ? '' : html`<dt>${f.paid}</dt><dd>${rubles(d.paid)}</dd>`}
${dd(f.stock, namedText(t, 'stock', d.stock as Named | null))}${dd(f.user, namedText(t, 'user', d.user as Named | null))}${dd(f.company, namedText(t, 'company', d.company as Named | null))}
${dd(f.comment, d.comment)}${dd(f.created, typeof d.created === 'string' ? moscowText(d.created) : undefined)}${dd(f.edited, typeof d.edited === 'string' ? moscowText(d.edited) : undefined)}${dd(f.purpose, d.purpose)}
</dl>`;
}

interface Line {
  pr_id: number | null;
  pr_name: string | null;
  pr_sku: string | null;
  pr_count: number;
  pr_unit: { name: string | null } | null;
  pr_price: number;
  pr_vat: number | null;
  pr_discount: number;
}

function linesTable({ t }: View, lines: Line[]) {
  const columns = t.document.lineColumns;
  return html`<h2>${t.document.lines}</h2>${scrolling(
    t.document.lines,
    html`<table>
<thead><tr><th>${columns.product}</th><th>${columns.sku}</th><th class="num">${columns.count}</th><th>${columns.unit}</th><th class="num">${columns.price}</th><th class="num">${columns.vat}</th><th class="num">${columns.discount}</th></tr></thead>
<tbody>${lines.map(
      (l) => html`<tr><td>${l.pr_id === null ? (l.pr_name ?? '') : html`<a href="${recordHref(`product-${l.pr_id}`)}">${l.pr_name ?? `#${l.pr_id}`}</a>`}</td><td>${l.pr_sku ?? ''}</td>
<td class="num">${l.pr_count}</td><td>${l.pr_unit?.name ?? ''}</td><td class="num">${rubles(l.pr_price)}</td><td class="num">${l.pr_vat ?? ''}</td><td class="num">${l.pr_discount}</td></tr>`,
    )}</tbody></table>`,
  )}`;
}

async function paidSection({ t }: View, d: ListedDocument, tb: Company) {
  if (d.paid === undefined) return '';
  const payments = await paymentsOf(d, tb.documents);
  const total = fromKopecks(payments.reduce((sum, p) => sum + p.sum, 0));
  const agrees = total === d.paid;
  return html`<h2>${t.document.paidTitle}</h2>
<p class="note">${t.document.paidNote}</p>
<table class="paid"><thead><tr><th>${t.document.payment}</th><th class="num">${t.document.fields.sum}</th></tr></thead><tbody>
${payments.map((p) => html`<tr><td>${documentLink(p.type, p.id, t.document.listed(typeName(t, p.type), p.id))}</td><td class="num">${rubles(fromKopecks(p.sum))}</td></tr>`)}
<tr><th>${t.document.total}</th><th class="num">${rubles(total)}</th></tr></tbody></table>
<p class="${agrees ? 'ok' : 'bad'}">${agrees ? t.document.paidAgrees(rubles(d.paid)) : t.document.paidDiffers(rubles(d.paid))}</p>`;
}

/** One document as the API shows it, its dependency tree drawn, how its paid is made up, and its history. */
export async function documentPage(c: Context, tb: Company, view: View): Promise<Response> {
  const { t } = view;
  const parsed = documentQuery.safeParse({ type: c.req.param('type'), id: c.req.param('id') });
  if (!parsed.success) return sendPage(c, page(view, t.document.noSuch, html`<p class="empty">${t.document.addressed}</p>`), 404);
  const { type, id } = parsed.data;
  const json = await tb.documents.listJson(type, id);
  if (json === undefined) return sendPage(c, page(view, t.document.noSuch, html`<p class="empty">${t.document.none(typeName(t, type), id)}</p>`), 404);
  const d = JSON.parse(json) as ListedDocument;
  const stream = `${type}-${id}`;
  // Independent reads, sent together: on a database server they travel at once instead of a round trip each.
  // The names its history would read: its contractor's, and its lines' products' as it names them.
  const lines = Array.isArray(d.products) ? (d.products as Line[]) : [];
  const known = new Map([
    ...(d.contractor.name ? [[`contractor-${d.contractor.id}`, d.contractor.name] as const] : []),
    ...lines.flatMap((l) => (l.pr_id !== null && l.pr_name ? [[`product-${l.pr_id}`, l.pr_name] as const] : [])),
  ]);
  const [historyPage, numbers, paid, company] = await Promise.all([
    historyPageIn(tb, t, stream, c.req.query('history')),
    tb.documents.numbersOf(treeDocuments(d.tree)),
    paidSection(view, d, tb),
    readCompanyDetails(tb.audit, d.date),
  ]);
  const history = await historyTable(tb, view, stream, historyPage, c.req.path, known);
  const title = `${typeName(t, type)} ${d.number ?? ''} (${t.document.ref(type, id)})`;
  return sendPage(
    c,
    page(
      view,
      title,
      html`${summary(view, d)}
<p class="company" data-company>${t.document.companyOn(day(d.date), company === undefined ? t.statement.companyUnset(day(d.date)) : partyLine(t, company))}</p>
<p class="no-print"><a href="${recordHref(stream)}">${t.document.asOf}</a></p>
${Array.isArray(d.products) ? linesTable(view, d.products as Line[]) : ''}
<h2>${t.document.tree}</h2>
${treeSvg(view, d.tree, numbers)}
${paid}
<h2>${t.document.history}</h2>
${history}
<details><summary>${t.document.asApi}</summary><pre class="mono">${JSON.stringify(d, null, 2)}</pre></details>`,
    ),
  );
}
