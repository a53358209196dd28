import type { Statement } from '../../audit/statement.ts';
import type { Company } from '../../company.ts';
import { type Texts, ru } from './texts.ts';
import { day, typeName } from './show.ts';

/** One side of an act: its name and taxpayer numbers. */
export interface Party {
  name: string;
  inn: string | null;
  kpp: string | null;
}

/**
 * An акт сверки взаимных расчётов as one side (the company) prepares it: the statement's figures from the
 * company's books under "по данным" of the company, the contractor's half left for them to fill. The balance of
 * the statement is what the company owes (above zero); in the act a debt of the contractor is a debit balance.
 */
export interface Act {
  company: Party;
  contractor: Party & { id: number };
  statement: Statement;
}

/**
 * The company as its documents name it: the `company` of the contractor's latest posted document (a document
 * carries the company's name, INN and KPP as they were when it was made); undefined when there is none.
 */
async function companyOf(tb: Company, statement: Statement, contractorId: number): Promise<Party | undefined> {
  const latest = statement.lines.at(-1) ?? (await tb.documents.postedOfContractor(contractorId)).at(-1);
  const company = latest && (await tb.documents.byId(latest.type, latest.id))?.fields.company;
  return company ? { name: company.name, inn: company.inn, kpp: company.kpp } : undefined;
}

export async function actOf(tb: Company, statement: Statement, contractor: Party & { id: number }, t: Texts): Promise<Act> {
  return { company: (await companyOf(tb, statement, contractor.id)) ?? { name: t.statement.companyUnknown, inn: null, kpp: null }, contractor, statement };
}

/** A balance of the statement as the act's debit and credit: a debt of the contractor to the company is a debit. */
export const balanceSides = (balance: number): { debit: number | null; credit: number | null } =>
  balance < 0 ? { debit: -balance, credit: null } : balance > 0 ? { debit: null, credit: balance } : { debit: null, credit: null };

/** A party with its taxpayer numbers: `ООО «Ромашка», ИНН 7701…, КПП 7701…`. */
export const partyLine = (t: Texts, party: Party) =>
  [party.name, party.inn && `${t.statement.inn} ${party.inn}`, party.kpp && `${t.statement.kpp} ${party.kpp}`].filter(Boolean).join(', ');

/** A document of the act as it is written there: `Отгрузка № О-3 от 02.11.2026`. */
export const actDocument = (t: Texts, line: Statement['lines'][number]) =>
  line.number ? t.statement.documentWithNumber(typeName(t, line.type), line.number, day(line.date)) : t.statement.documentNoNumber(typeName(t, line.type), day(line.date));

/** Who owes whom at the end of the period, as the act's closing sentence says it. */
export function closingSentence(t: Texts, act: Act, formatMoney: (rubles: number) => string): string {
  const { closing, dateTo } = act.statement;
  if (closing === 0) return t.statement.settled(day(dateTo));
  const [debtor, creditor] = closing < 0 ? [act.contractor, act.company] : [act.company, act.contractor];
  return t.statement.owes(debtor.name, creditor.name, day(dateTo), formatMoney(Math.abs(closing)));
}

/** A cell of the act written to a file: text, an amount in rubles, or a date (`YYYY-MM-DD`). */
export type ActCell = string | { rubles: number } | { date: string } | null;

/**
 * The act as rows of cells, as it is printed: the title, the parties and period, the two halves' headings, the
 * opening balance, a row a document, the turnover, the closing balance, who owes whom and the signatures. The
 * files (XLSX, CSV) are written from these rows; `header` counts the rows above the table's first row of figures.
 */
export function actRows(t: Texts, act: Act, formatMoney: (rubles: number) => string): { rows: ActCell[][]; tableFrom: number; tableTo: number } {
  const s = act.statement;
  const columns = t.statement.columns;
  const money = (value: number | null): ActCell => (value === null ? null : { rubles: value });
  const sides = (balance: number) => {
    const { debit, credit } = balanceSides(balance);
    return [money(debit), money(credit)];
  };
  const blank = [null, null, null, null];
  const rows: ActCell[][] = [
    [t.statement.title],
    [t.statement.heading(day(s.dateFrom), day(s.dateTo))],
    [t.statement.between(partyLine(t, act.company), partyLine(t, act.contractor))],
    [t.statement.preamble(act.company.name, act.contractor.name)],
    [],
    [t.statement.byData(act.company.name), null, null, null, t.statement.byData(act.contractor.name)],
    [columns.date, columns.document, columns.debit, columns.credit, columns.date, columns.document, columns.debit, columns.credit],
  ];
  const tableFrom = rows.length;
  rows.push([null, t.statement.opening, ...sides(s.opening), ...blank]);
  for (const line of s.lines) rows.push([{ date: line.date }, actDocument(t, line), money(line.debit), money(line.credit), ...blank]);
  rows.push([null, t.statement.turnover, money(s.debit), money(s.credit), ...blank]);
  rows.push([null, t.statement.closing, ...sides(s.closing), ...blank]);
  const tableTo = rows.length - 1;
  rows.push([], [closingSentence(t, act, formatMoney)], [], [t.statement.signatures(act.company.name), null, null, null, t.statement.signatures(act.contractor.name)]);
  rows.push([t.statement.signatureLine, null, null, null, t.statement.signatureLine], [t.statement.stamp, null, null, null, t.statement.stamp]);
  return { rows, tableFrom, tableTo };
}

/** The act's files are in Russian when asked through the API, which has no reader's language. */
export const API_ACT_TEXTS = ru;
