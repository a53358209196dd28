import { BALANCE_CREDIT_TYPES, type DocumentType } from '../events/documents.ts';
import { csvText } from '../lib/csv.ts';
import { fromKopecks } from '../lib/money.ts';
import type { PostedDocument } from '../projections/documents/queries.ts';

/** One document of a statement: it lowers the balance (debit) or raises it (credit), in rubles. */
export interface StatementLine {
  date: string;
  type: DocumentType;
  id: number;
  number: string | null;
  debit: number | null;
  credit: number | null;
  /** The balance after it. */
  balance: number;
}

/** A contractor's reconciliation statement (акт сверки) over a period, money in rubles. */
export interface Statement {
  dateFrom: string;
  dateTo: string;
  opening: number;
  lines: StatementLine[];
  debit: number;
  credit: number;
  closing: number;
}

/**
 * The statement of a period from a contractor's posted documents (all of them, by date): the opening balance is
 * what the documents dated before the period left, each document in the period moves it by its sum (decisions.md
 * §7), and the closing balance is where they leave it — the contractor's `balance` when no document is dated
 * after the period.
 */
export function statementOf(posted: PostedDocument[], dateFrom: string, dateTo: string): Statement {
  let balance = 0;
  let debit = 0;
  let credit = 0;
  const lines: StatementLine[] = [];
  for (const doc of posted) {
    if (doc.date > dateTo) break;
    const raises = BALANCE_CREDIT_TYPES.includes(doc.type);
    balance += raises ? doc.sum : -doc.sum;
    if (doc.date < dateFrom) continue;
    if (raises) credit += doc.sum;
    else debit += doc.sum;
    lines.push({
      date: doc.date,
      type: doc.type,
      id: doc.id,
      number: doc.number,
      debit: raises ? null : fromKopecks(doc.sum),
      credit: raises ? fromKopecks(doc.sum) : null,
      balance: fromKopecks(balance),
    });
  }
  const opening = balance - credit + debit;
  return { dateFrom, dateTo, opening: fromKopecks(opening), lines, debit: fromKopecks(debit), credit: fromKopecks(credit), closing: fromKopecks(balance) };
}

const money = (rubles: number | null) => (rubles === null ? '' : rubles.toFixed(2));

/** The statement as CSV (a header row): opening, each document, closing, each with the balance. */
export function statementCsv(statement: Statement): string {
  return csvText([
    ['date', 'document', 'id', 'number', 'debit', 'credit', 'balance'],
    [statement.dateFrom, 'opening balance', '', '', '', '', money(statement.opening)],
    ...statement.lines.map((l) => [l.date, l.type, l.id, l.number ?? '', money(l.debit), money(l.credit), money(l.balance)]),
    [statement.dateTo, 'closing balance', '', '', money(statement.debit), money(statement.credit), money(statement.closing)],
  ]);
}
