import type { Context } from 'hono';
import { html } from 'hono/html';
import { statementCsv, statementOf } from '../../audit/statement.ts';
import { formatMoscow } from '../../lib/clock.ts';
import type { Company } from '../../company.ts';
import { statementQuery } from '../routes/audit.ts';
import { formValues, problems, readForm } from './forms.ts';
import { page, sendPage } from './layout.ts';
import { href } from './links.ts';
import type { AuditSession } from './session.ts';
import { documentLink, rubles } from './show.ts';

function statementForm(values: Record<string, string>, today: string) {
  return html`<form class="search" method="get" action="/audit/statement">
<label>Contractor id <input name="contractor" inputmode="numeric" size="8" value="${values.contractor ?? ''}" required></label>
<label>From <input type="date" name="dateFrom" value="${values.dateFrom ?? `${today.slice(0, 4)}-01-01`}" required></label>
<label>To <input type="date" name="dateTo" value="${values.dateTo ?? today}" required></label>
<button class="primary" type="submit">Show</button>
</form>`;
}

/** The statement's period and contractor, checked as the API checks them; the page or CSV to send otherwise. */
async function askedStatement(c: Context, tb: Company, session: AuditSession) {
  const today = formatMoscow(tb.clock()).slice(0, 10);
  const form = readForm(c, statementQuery);
  const values = formValues(c);
  const title = 'Reconciliation statement (акт сверки)';
  const refuse = (body: ReturnType<typeof html>, status: 200 | 400 | 404) => ({ answer: sendPage(c, page(title, html`${statementForm(values, today)}${body}`, session), status) });
  if (!form.asked) return refuse(html``, 200);
  if (!form.ok) return refuse(problems(form.errors), 400);
  const { contractor: id, dateFrom, dateTo } = form.value;
  if (dateTo < dateFrom) return refuse(problems([{ code: 'ERROR_DATETO', message: 'dateTo: must not be before dateFrom' }]), 400);
  const json = await tb.contractors.jsonById(id);
  if (json === undefined) return refuse(html`<p class="bad">There is no contractor ${id}.</p>`, 404);
  const posted = await tb.documents.postedOfContractor(id);
  const contractor = JSON.parse(json) as { id: number; name: string; balance: number };
  return { statement: statementOf(posted, dateFrom, dateTo), later: posted.filter((d) => d.date > dateTo).length, contractor, title, values, today };
}

/** A contractor's statement for a period: opening balance, every posted document that moved it, closing balance. */
export async function statementPage(c: Context, tb: Company, session: AuditSession): Promise<Response> {
  const asked = await askedStatement(c, tb, session);
  if ('answer' in asked) return asked.answer;
  const { statement: s, later, contractor, title, values, today } = asked;
  const csv = href('/audit/statement.csv', { contractor: contractor.id, dateFrom: s.dateFrom, dateTo: s.dateTo });
  const now = `${contractor.name}'s balance now, ${rubles(contractor.balance)}`;
  const reconciled =
    later > 0
      ? html`<p class="note">${later} posted documents are dated after ${s.dateTo}: the closing balance is not ${now}.</p>`
      : s.closing === contractor.balance
        ? html`<p class="ok" data-reconciled="1">No posted document is dated after ${s.dateTo}: the closing balance equals ${now}.</p>`
        : html`<p class="bad" data-reconciled="0">The closing balance differs from ${now}: rebuild and verify the read tables.</p>`;
  return sendPage(
    c,
    page(
      title,
      html`${statementForm(values, today)}
<h2>${contractor.name} (${contractor.id}), ${s.dateFrom} – ${s.dateTo}</h2>
<p class="note">A balance above zero: the company owes the contractor; below zero: the contractor owes the company. Debit lowers it, credit raises it.</p>
<table class="statement"><thead><tr><th>date</th><th>document</th><th>number</th><th class="num">debit</th><th class="num">credit</th><th class="num">balance</th></tr></thead>
<tbody><tr><td>${s.dateFrom}</td><td colspan="4">opening balance</td><td class="num" data-opening="${s.opening}">${rubles(s.opening)}</td></tr>
${s.lines.map(
  (l) => html`<tr><td>${l.date}</td><td>${documentLink(l.type, l.id)}</td><td>${l.number ?? ''}</td><td class="num">${l.debit === null ? '' : rubles(l.debit)}</td>
<td class="num">${l.credit === null ? '' : rubles(l.credit)}</td><td class="num">${rubles(l.balance)}</td></tr>`,
)}
<tr><th>${s.dateTo}</th><th colspan="2">closing balance</th><th class="num">${rubles(s.debit)}</th><th class="num">${rubles(s.credit)}</th><th class="num" data-closing="${s.closing}">${rubles(s.closing)}</th></tr></tbody></table>
${s.dateTo >= today ? reconciled : ''}
<p><a href="${csv}">Download as CSV</a></p>`,
      session,
    ),
  );
}

/** The same statement as CSV. */
export async function statementCsvFile(c: Context, tb: Company, session: AuditSession): Promise<Response> {
  const asked = await askedStatement(c, tb, session);
  if ('answer' in asked) return asked.answer;
  const { statement, contractor } = asked;
  return c.body(statementCsv(statement), 200, {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="statement-${contractor.id}-${statement.dateFrom}-${statement.dateTo}.csv"`,
    'Cache-Control': 'no-store',
  });
}
