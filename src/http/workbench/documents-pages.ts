import type { Context } from 'hono';
import { html } from 'hono/html';
import { z } from 'zod';
import { paymentsOf } from '../../audit/paid.ts';
import { calendarDate } from '../../commands/documents.ts';
import { DOCUMENT_TYPES, type DocumentType } from '../../events/documents.ts';
import { fromKopecks } from '../../lib/money.ts';
import { documentName } from '../../projections/documents/views.ts';
import type { Company } from '../../company.ts';
import { queryInt } from '../query.ts';
import { documentQuery } from '../routes/audit.ts';
import { formValues, problems, readForm } from './forms.ts';
import { historyTable } from './history-table.ts';
import { page, sendPage } from './layout.ts';
import { documentHref, href, recordHref } from './links.ts';
import type { AuditSession } from './session.ts';
import { documentLink, rubles, statusName } from './show.ts';
import { type TreeNode, treeSvg } from './tree-svg.ts';

const PAGE_SIZE = 50;

const findQuery = z.object({
  type: z.enum(DOCUMENT_TYPES, { error: `must be one of ${DOCUMENT_TYPES.join(', ')}` }).optional(),
  id: queryInt(1).optional(),
  number: z.string().max(200, 'must be at most 200 characters').optional(),
  contractor: queryInt(1).optional(),
  dateFrom: calendarDate().optional(),
  dateTo: calendarDate().optional(),
  status: z.enum(['0', '1'], { error: 'must be 0 or 1' }).transform(Number).optional(),
  offset: queryInt(0).optional().default(0),
});

/** A document as the API lists it: the fields every page shows. */
interface ListedDocument {
  id: number;
  type: DocumentType;
  name?: string;
  status: number;
  number: string | null;
  date: string;
  contractor: { id: number; name: string | null };
  sum: number;
  paid?: number;
  tree: TreeNode | TreeNode[];
  [field: string]: unknown;
}

const selected = (value: string | undefined, option: string) => (value === option ? html` selected` : '');

function findForm(values: Record<string, string>) {
  return html`<form class="search" method="get" action="/audit/documents">
<label>Type <select name="type"><option value="">any</option>${DOCUMENT_TYPES.map((t) => html`<option${selected(values.type, t)}>${t}</option>`)}</select></label>
<label>Id <input name="id" inputmode="numeric" size="8" value="${values.id ?? ''}"></label>
<label>Number <input name="number" size="12" value="${values.number ?? ''}"></label>
<label>Contractor id <input name="contractor" inputmode="numeric" size="8" value="${values.contractor ?? ''}"></label>
<label>From <input type="date" name="dateFrom" value="${values.dateFrom ?? ''}"></label>
<label>To <input type="date" name="dateTo" value="${values.dateTo ?? ''}"></label>
<label>Status <select name="status"><option value="">any</option><option value="1"${selected(values.status, '1')}>posted</option><option value="0"${selected(values.status, '0')}>not posted</option></select></label>
<button class="primary" type="submit">Find</button>
</form>`;
}

function resultsTable(found: ListedDocument[]) {
  if (found.length === 0) return html`<p>No document matches.</p>`;
  return html`<table class="results">
<thead><tr><th>document</th><th>number</th><th>date</th><th>contractor</th><th class="num">sum</th><th class="num">paid</th><th>status</th></tr></thead>
<tbody>${found.map(
    (d) => html`<tr><td>${documentLink(d.type, d.id)}</td><td>${d.number ?? ''}</td><td>${d.date}</td><td>${d.contractor.name ?? ''} (${d.contractor.id})</td>
<td class="num">${rubles(d.sum)}</td><td class="num">${d.paid === undefined ? '' : rubles(d.paid)}</td><td>${statusName(d.status)}</td></tr>`,
  )}</tbody></table>`;
}

/** Find a document by type and id (straight to its page), or list those matching a number, contractor, dates and status. */
export async function findDocumentsPage(c: Context, tb: Company, session: AuditSession): Promise<Response> {
  const form = readForm(c, findQuery);
  const values = formValues(c);
  const title = 'Find a document';
  if (!form.asked) return sendPage(c, page(title, findForm(values), session));
  if (!form.ok) return sendPage(c, page(title, html`${findForm(values)}${problems(form.errors)}`, session), 400);
  const { type, id, number, contractor, dateFrom, dateTo, status, offset } = form.value;
  if (id !== undefined) {
    if (type === undefined) return sendPage(c, page(title, html`${findForm(values)}${problems([{ code: 'ERROR_TYPE', message: 'type: give the type with the id' }])}`, session), 400);
    return c.redirect(documentHref(type, id), 303);
  }
  const rows = await tb.documents.search({ type, number, contractorId: contractor, dateFrom, dateTo, status }, offset, PAGE_SIZE + 1);
  const found = rows.slice(0, PAGE_SIZE).map((json) => JSON.parse(json) as ListedDocument);
  const at = (to: number) => href('/audit/documents', { ...values, offset: to });
  const pager = html`<div class="pager">${offset > 0 ? html`<a href="${at(Math.max(0, offset - PAGE_SIZE))}">← previous</a>` : ''}
${rows.length > PAGE_SIZE ? html`<a href="${at(offset + PAGE_SIZE)}">next →</a>` : ''}</div>`;
  return sendPage(c, page(title, html`${findForm(values)}<p class="note">Newest first; ${offset + 1}–${offset + found.length}.</p>${resultsTable(found)}${pager}`, session));
}

/** The document's display name: money documents carry theirs, documents of lines are named by type. */
const nameOf = (d: ListedDocument) => d.name ?? documentName(d.type, false);

const dd = (label: string, value: unknown) => (value === null || value === undefined || value === '' ? '' : html`<dt>${label}</dt><dd>${String(value)}</dd>`);

function summary(d: ListedDocument) {
  const contractor = d.contractor;
  const year = d.date.slice(0, 4);
  return html`<dl class="fields">
${dd('Name', nameOf(d))}${dd('Type', d.type)}${dd('Id', d.id)}${dd('Number', d.number)}${dd('Date', d.date)}
<dt>Status</dt><dd>${statusName(d.status)}</dd>
<dt>Contractor</dt><dd>${contractor.name ?? ''} (${contractor.id}) · <a href="${href('/audit/statement', { contractor: contractor.id, dateFrom: `${year}-01-01`, dateTo: `${year}-12-31` })}">statement for ${year}</a></dd>
<dt>Sum</dt><dd>${rubles(d.sum)}</dd>
${d.paid === undefined ? '' : html`<dt>Paid</dt><dd>${rubles(d.paid)}</dd>`}
${dd('Comment', d.comment)}${dd('Created (Moscow)', d.created)}${dd('Edited (Moscow)', d.edited)}${dd('Purpose', d.purpose)}
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

function linesTable(lines: Line[]) {
  return html`<h2>Lines</h2><table>
<thead><tr><th>product</th><th>sku</th><th class="num">count</th><th>unit</th><th class="num">price</th><th class="num">VAT %</th><th class="num">discount %</th></tr></thead>
<tbody>${lines.map(
    (l) => html`<tr><td>${l.pr_name ?? ''}${l.pr_id === null ? '' : html` (<a href="${recordHref(`product-${l.pr_id}`)}">${l.pr_id}</a>)`}</td><td>${l.pr_sku ?? ''}</td>
<td class="num">${l.pr_count}</td><td>${l.pr_unit?.name ?? ''}</td><td class="num">${rubles(l.pr_price)}</td><td class="num">${l.pr_vat ?? ''}</td><td class="num">${l.pr_discount}</td></tr>`,
  )}</tbody></table>`;
}

async function paidSection(d: ListedDocument, tb: Company) {
  if (d.paid === undefined) return '';
  const payments = await paymentsOf(d.type, d.id, { childrenOf: (type, id) => tb.documents.childrenOf(type, id), byId: (type, id) => tb.documents.byId(type, id) });
  const total = fromKopecks(payments.reduce((sum, p) => sum + p.sum, 0));
  const agrees = total === d.paid;
  return html`<h2>How paid is made up</h2>
<p class="note">Every posted payment (cash in, payment in, bonus) whose chain of "based on" reaches this document counts once.</p>
<table class="paid"><thead><tr><th>payment</th><th class="num">sum</th></tr></thead><tbody>
${payments.map((p) => html`<tr><td>${documentLink(p.type, p.id)}</td><td class="num">${rubles(fromKopecks(p.sum))}</td></tr>`)}
<tr><th>total</th><th class="num">${rubles(total)}</th></tr></tbody></table>
<p class="${agrees ? 'ok' : 'bad'}">${agrees ? `Equals the document's paid, ${rubles(d.paid)}.` : `Differs from the document's paid, ${rubles(d.paid)}: rebuild and verify the read tables.`}</p>`;
}

/** One document as the API shows it, its dependency tree drawn, how its paid is made up, and its history. */
export async function documentPage(c: Context, tb: Company, session: AuditSession): Promise<Response> {
  const parsed = documentQuery.safeParse({ type: c.req.param('type'), id: c.req.param('id') });
  if (!parsed.success) return sendPage(c, page('No such document', html`<p>Documents are addressed by type and id, e.g. <code>/audit/document/sale/187</code>.</p>`, session), 404);
  const { type, id } = parsed.data;
  const json = await tb.documents.listJson(type, id);
  if (json === undefined) return sendPage(c, page('No such document', html`<p>There is no ${type} ${id}.</p>`, session), 404);
  const d = JSON.parse(json) as ListedDocument;
  const stream = `${type}-${id}`;
  const history = await tb.audit.history(stream);
  const title = `${nameOf(d)} ${d.number ?? ''} (${type} ${id})`;
  return sendPage(
    c,
    page(
      title,
      html`${summary(d)}
<p><a href="${recordHref(stream)}">This document as of a moment</a></p>
${Array.isArray(d.products) ? linesTable(d.products as Line[]) : ''}
<h2>Dependency tree</h2>
${treeSvg(d.tree)}
${await paidSection(d, tb)}
<h2>History</h2>
${historyTable(history)}
<details><summary>As the API shows it</summary><pre class="mono">${JSON.stringify(d, null, 2)}</pre></details>`,
      session,
    ),
  );
}
