import type { Context } from 'hono';
import { html } from 'hono/html';
import { statementLimit, type Statement, walkStatement, wholeStatement } from '../../audit/statement.ts';
import { formatMoscow } from '../../lib/clock.ts';
import type { Company } from '../../company.ts';
import { statementQuery } from '../routes/audit.ts';
import { type Act, actDocument, actOf, balanceInWords, balanceSides, closingSentence, partyKind, partyLine, preamble, signatureBlocks } from './act.ts';
import { XLSX_TYPE, actCsv, actXlsx } from './act-files.ts';
import { dateInput, formProblem, formValues, problems, readForm } from './forms.ts';
import { page, scrolling, sendPage, type View } from './layout.ts';
import { statementHref } from './links.ts';
import { contractorLink, dateValue, day, documentLink, rubles } from './show.ts';

function statementForm({ t }: View, values: Record<string, string>, today: string) {
  return html`<form class="search" method="get" action="/audit/statement">
<label>${t.statement.contractorId} <input name="contractor" inputmode="numeric" size="8" value="${values.contractor ?? ''}" required></label>
<label>${t.fields.dateFrom} ${dateInput(t, 'dateFrom', dateValue(values.dateFrom ?? `${today.slice(0, 4)}-01-01`), true)}</label>
<label>${t.fields.dateTo} ${dateInput(t, 'dateTo', dateValue(values.dateTo ?? today), true)}</label>
<button class="primary" type="submit">${t.common.show}</button>
</form>`;
}

/** The statement's period and contractor, checked as the API checks them; the page to send otherwise. */
async function askedAct(c: Context, tb: Company, view: View) {
  const { t } = view;
  const today = formatMoscow(tb.clock()).slice(0, 10);
  const form = readForm(c, statementQuery);
  const values = formValues(c);
  const refuse = (body: ReturnType<typeof html>, status: 200 | 400 | 404) => ({
    answer: sendPage(c, page(view, t.statement.title, html`${statementForm(view, values, today)}${body}`), status),
  });
  if (!form.asked) return refuse(html`<p class="note">${t.statement.pickContractor}</p>`, 200);
  if (!form.ok) return refuse(problems(t, form.errors), 400);
  const { contractor: id, dateFrom, dateTo } = form.value;
  if (dateTo < dateFrom) return refuse(formProblem(t, t.problems.periodReversed), 400);
  // Sent together: on a database server the two travel at once.
  const [found, walk] = await Promise.all([tb.contractors.withJsonById(id), walkStatement(tb.documents.statement, id, dateFrom, dateTo)]);
  if (found === undefined) return refuse(html`<p class="empty">${t.statement.noContractor(id)}</p>`, 404);
  if (walk.tooLong) return refuse(formProblem(t, t.statement.tooManyLines(statementLimit.lines)), 400);
  const { record } = found;
  const act = await actOf(tb, walk, { id, name: record.name ?? `#${id}`, inn: record.inn, kpp: record.kpp, kind: partyKind(record.type) });
  const json = JSON.parse(found.json) as { balance: number };
  return { act, balance: json.balance, values, today };
}

const amount = (value: number | null) => (value === null ? '' : rubles(value));

/** The act as printed: parties and period, the company's half filled in and the contractor's left blank, who owes whom, signatures. */
function actSection({ t }: View, act: Act, s: Statement) {
  const columns = t.statement.columns;
  const blank = html`<td></td><td></td><td class="num"></td><td class="num"></td>`;
  const sides = (balance: number, attribute: string) => {
    const { debit, credit } = balanceSides(balance);
    return html`<td class="num" ${attribute}="${balance}">${amount(debit)}</td><td class="num">${amount(credit)}</td>`;
  };
  return html`<section class="act" aria-label="${t.statement.title}">
<p class="period">${t.statement.heading(day(s.dateFrom), day(s.dateTo))}</p>
<p class="parties">${t.statement.between(partyLine(t, act.company), partyLine(t, act.contractor))}</p>
<p>${preamble(t, act)}</p>
${act.company === undefined ? html`<p class="bad" data-company-unset>${t.statement.companyUnset(day(s.dateTo))}</p>` : ''}
${scrolling(
  t.statement.title,
  html`<table class="statement">
<thead><tr><th colspan="4" scope="colgroup">${t.statement.byData(act.company?.name ?? t.statement.companyUnknown)}</th><th colspan="4" scope="colgroup">${t.statement.byData(act.contractor.name)}</th></tr>
<tr><th scope="col">${columns.date}</th><th scope="col">${columns.document}</th><th class="num" scope="col">${columns.debit}</th><th class="num" scope="col">${columns.credit}</th>
<th scope="col">${columns.date}</th><th scope="col">${columns.document}</th><th class="num" scope="col">${columns.debit}</th><th class="num" scope="col">${columns.credit}</th></tr></thead>
<tbody><tr class="total"><td></td><th scope="row">${t.statement.opening}</th>${sides(s.opening, 'data-opening')}${blank}</tr>
${s.lines.map(
  (l) => html`<tr data-document="${l.type}-${l.id}"><td>${day(l.date)}</td><td>${documentLink(l.type, l.id, actDocument(t, l))}</td><td class="num">${amount(l.debit)}</td><td class="num">${amount(l.credit)}</td>${blank}</tr>`,
)}
<tr class="total"><td></td><th scope="row">${t.statement.turnover}</th><td class="num" data-debit="${s.debit}">${rubles(s.debit)}</td><td class="num" data-credit="${s.credit}">${rubles(s.credit)}</td>${blank}</tr>
<tr class="total"><td></td><th scope="row">${t.statement.closing}</th>${sides(s.closing, 'data-closing')}${blank}</tr></tbody></table>`,
)}
${s.lines.length === 0 ? html`<p class="note">${t.statement.none}</p>` : ''}
<p class="owes"><b>${closingSentence(t, act, s.closing, rubles)}</b></p>
<p class="note">${t.statement.balanceNote} ${t.statement.orderNote}</p>
<div class="signatures">${signatureBlocks(t, act).map(
    (block) =>
      html`<div><p>${block.heading}</p>${
        block.signers.length > 0 ? block.signers.map((signer) => html`<p>${signer}</p>`) : html`<div class="line"></div><small>${t.statement.signatureLine}</small>`
      }<p><small>${t.statement.stamp}</small></p></div>`,
  )}</div>
</section>`;
}

/** A contractor's акт сверки for a period, with its files, and whether its closing balance is the contractor's balance now. */
export async function statementPage(c: Context, tb: Company, view: View): Promise<Response> {
  const { t } = view;
  const asked = await askedAct(c, tb, view);
  if ('answer' in asked) return asked.answer;
  const { act, balance, values, today } = asked;
  const s = await wholeStatement(act.statement);
  const later = act.statement.later;
  const file = (path: string) => statementHref(act.contractor.id, s.dateFrom, s.dateTo, path);
  const now = balanceInWords(t, balance, rubles);
  const reconciled =
    later > 0
      ? html`<p class="note">${t.statement.reconciledLater(later, day(s.dateTo), now)}</p>`
      : s.closing === balance
        ? html`<p class="ok no-print" data-reconciled="1">${t.statement.reconciled(day(s.dateTo), now)}</p>`
        : html`<p class="bad no-print" data-reconciled="0">${t.statement.notReconciled(now)}</p>`;
  return sendPage(
    c,
    page(
      view,
      t.statement.title,
      html`${statementForm(view, values, today)}
<p class="no-print">${contractorLink(act.contractor.id, act.contractor.name)}</p>
${actSection(view, act, s)}
${s.dateTo >= today ? reconciled : ''}
<p class="downloads">${t.statement.downloads} <a href="${file('/audit/statement.xlsx')}" download>${t.statement.xlsx}</a> <a href="${file('/audit/statement.csv')}" download>${t.statement.csv}</a></p>`,
    ),
  );
}

/** The file name of an act: the contractor and the period. */
const fileName = (act: Act, extension: string) => `akt-sverki-${act.contractor.id}-${act.statement.dateFrom}-${act.statement.dateTo}.${extension}`;

/** The same act as CSV for Excel. */
export async function statementCsvFile(c: Context, tb: Company, view: View): Promise<Response> {
  const asked = await askedAct(c, tb, view);
  if ('answer' in asked) return asked.answer;
  return c.body(actCsv(view.t, asked.act), 200, {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${fileName(asked.act, 'csv')}"`,
    'Cache-Control': 'no-store',
  });
}

/** The same act as an XLSX workbook. */
export async function statementXlsxFile(c: Context, tb: Company, view: View): Promise<Response> {
  const asked = await askedAct(c, tb, view);
  if ('answer' in asked) return asked.answer;
  return c.body(actXlsx(view.t, asked.act), 200, {
    'Content-Type': XLSX_TYPE,
    'Content-Disposition': `attachment; filename="${fileName(asked.act, 'xlsx')}"`,
    'Cache-Control': 'no-store',
  });
}
