import type { DocumentType } from '../records/document/events.ts';
import { type CsvDialect, EXCEL_RU, RFC_4180, csvText } from '../lib/csv.ts';
import type { StatementLine, StatementWalk } from './statement.ts';

/**
 * A statement as a CSV file, written a page of documents at a time. Two dialects:
 * - `csv`: English headings, RFC 4180, decimal points, the signed balance as the API's `balance` gives it (below
 *   zero: the contractor owes the company);
 * - `csv-ru`: Russian headings, `;` between fields and decimal commas as Excel in a Russian locale reads them, the
 *   balance in the act's convention: an amount on its side, debit when the contractor owes the company, credit
 *   when the company owes the contractor, 0,00 on both sides when nothing is owed.
 */
export interface StatementCsvFormat {
  dialect: CsvDialect;
  /** Written before the header row (a byte-order mark tells Excel the file is UTF-8). */
  start: string;
  header: string[];
  opening(walk: StatementWalk): (string | number)[];
  line(line: StatementLine): (string | number)[];
  closing(walk: StatementWalk): (string | number)[];
}

const signed = (rubles: number | null) => (rubles === null ? '' : rubles.toFixed(2));

export const API_CSV: StatementCsvFormat = {
  dialect: RFC_4180,
  start: '',
  header: ['date', 'document', 'id', 'number', 'debit', 'credit', 'balance'],
  opening: (walk) => [walk.dateFrom, 'opening balance', '', '', '', '', signed(walk.opening)],
  line: (l) => [l.date, l.type, l.id, l.number ?? '', signed(l.debit), signed(l.credit), signed(l.balance)],
  closing: (walk) => {
    const totals = walk.totals();
    return [walk.dateTo, 'closing balance', '', '', signed(totals.debit), signed(totals.credit), signed(totals.closing)];
  },
};

/** An amount with a decimal comma and no grouping, as Excel in a Russian locale reads a number. */
const comma = (rubles: number | null) => (rubles === null ? '' : rubles.toFixed(2).replace('.', ','));
/** A balance on its side of the act: [debit, credit]. */
const onItsSide = (balance: number) => (balance < 0 ? [comma(-balance), ''] : balance > 0 ? ['', comma(balance)] : [comma(0), comma(0)]);
const ruDate = (iso: string) => `${iso.slice(8, 10)}.${iso.slice(5, 7)}.${iso.slice(0, 4)}`;

/** The Russian CSV, its documents named by `typeName` (`Отгрузка`). */
export const ruStatementCsv = (typeName: (type: DocumentType) => string): StatementCsvFormat => ({
  dialect: EXCEL_RU,
  start: '\uFEFF',
  header: ['Дата', 'Документ', 'Id', 'Номер', 'Дебет', 'Кредит', 'Сальдо по дебету', 'Сальдо по кредиту'],
  opening: (walk) => [ruDate(walk.dateFrom), 'Сальдо начальное', '', '', '', '', ...onItsSide(walk.opening)],
  line: (l) => [ruDate(l.date), typeName(l.type), l.id, l.number ?? '', comma(l.debit), comma(l.credit), ...onItsSide(l.balance)],
  closing: (walk) => {
    const totals = walk.totals();
    return [ruDate(walk.dateTo), 'Сальдо конечное', '', '', comma(totals.debit), comma(totals.credit), ...onItsSide(totals.closing)];
  },
});

/** The statement's CSV text a piece at a time: the header and opening, a page of documents each, the closing. */
export async function* statementCsv(walk: StatementWalk, format: StatementCsvFormat): AsyncGenerator<string> {
  yield format.start + csvText([format.header, format.opening(walk)], format.dialect);
  for await (const page of walk.pages()) yield csvText(page.map(format.line), format.dialect);
  yield csvText([format.closing(walk)], format.dialect);
}
