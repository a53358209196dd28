import { setImmediate as nextTurn } from 'node:timers/promises';
import { BALANCE_CREDIT_TYPES, type DocumentType } from '../records/document/events.ts';
import { fromKopecks } from '../lib/money.ts';
import type { PostedDocument, StatementReads } from '../projections/documents/queries.ts';

/**
 * A contractor's reconciliation statement (акт сверки) over a period, read a page of documents at a time so that
 * its files are written as they are read: the opening balance is what the posted documents dated before the
 * period left, each document in the period moves it by its sum (decisions.md §7), the closing balance is where
 * they leave it — the contractor's `balance` when no document is dated after the period. Money in rubles.
 *
 * The documents of one day come in a stated order: documents of goods (shipments, purchases, returns) before
 * money documents (payments), then by number, then by type and id — a shipment before the payment for it.
 */

/**
 * The most documents one statement holds, in any format: beyond it the period must be narrowed. A value, not a
 * constant, so that a test reaches the bound without writing 100,000 documents.
 */
export const statementLimit = { lines: 100_000 };
/** Documents read at a time; the turn is given back to the server between pages. */
const PAGE_SIZE = 500;

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

/** What a statement ends with: the turnover on each side and the closing balance. */
export interface StatementTotals {
  debit: number;
  credit: number;
  closing: number;
}

/** A whole statement, as the API's JSON answer carries it. */
export interface Statement extends StatementTotals {
  dateFrom: string;
  dateTo: string;
  opening: number;
  lines: StatementLine[];
}

/**
 * A statement as it is read: its period, opening balance and whether it is too long known before any line is read,
 * its lines a page at a time (`pages`, once), its totals once every page is read.
 */
export interface StatementWalk {
  dateFrom: string;
  dateTo: string;
  opening: number;
  /** How many posted documents are dated after the period: with none, the closing balance is the contractor's balance now. */
  later: number;
  /** The period holds more documents than a statement may (`statementLimit`): refuse it before anything is sent. */
  tooLong: boolean;
  pages(): AsyncGenerator<StatementLine[]>;
  totals(): StatementTotals;
}

/** Each document's line with the balance after it, from the opening balance on (kopecks inside, rubles out). */
export function statementTally(openingKopecks: number) {
  let balance = openingKopecks;
  let debit = 0;
  let credit = 0;
  return {
    line(doc: PostedDocument): StatementLine {
      const raises = BALANCE_CREDIT_TYPES.includes(doc.type);
      balance += raises ? doc.sum : -doc.sum;
      if (raises) credit += doc.sum;
      else debit += doc.sum;
      const sum = fromKopecks(doc.sum);
      return { date: doc.date, type: doc.type, id: doc.id, number: doc.number, debit: raises ? null : sum, credit: raises ? sum : null, balance: fromKopecks(balance) };
    },
    totals: (): StatementTotals => ({ debit: fromKopecks(debit), credit: fromKopecks(credit), closing: fromKopecks(balance) }),
  };
}

/**
 * The statement of a contractor over a period: its opening balance, the documents dated after it and its documents' keys in order read now (a
 * number each), the documents themselves a page at a time as they are asked for.
 */
export async function walkStatement(reads: StatementReads, contractorId: number, dateFrom: string, dateTo: string): Promise<StatementWalk> {
  // One key past the limit tells a period too long for a statement, and no more than that is ever held.
  const [outside, keys] = await Promise.all([reads.outside(contractorId, dateFrom, dateTo), reads.postedKeys(contractorId, dateFrom, dateTo, statementLimit.lines + 1)]);
  const tally = statementTally(outside.opening);
  return {
    dateFrom,
    dateTo,
    opening: fromKopecks(outside.opening),
    later: outside.later,
    tooLong: keys.length > statementLimit.lines,
    async *pages() {
      for (let from = 0; from < keys.length; from += PAGE_SIZE) {
        // A page of a database file is read within the turn: the server's other requests go between pages.
        if (from > 0) await nextTurn();
        yield (await reads.postedByKeys(keys.slice(from, from + PAGE_SIZE))).map((doc) => tally.line(doc));
      }
    },
    totals: () => tally.totals(),
  };
}

/** Every line of a walk gathered, for the answers that hold the whole statement (JSON, the page). */
export async function wholeStatement(walk: StatementWalk): Promise<Statement> {
  const lines: StatementLine[] = [];
  for await (const page of walk.pages()) lines.push(...page);
  return { dateFrom: walk.dateFrom, dateTo: walk.dateTo, opening: walk.opening, lines, ...walk.totals() };
}

/** Why a statement is refused before anything is sent: more documents than a statement holds. */
export const tooManyLines = () => `the period holds more than ${statementLimit.lines} posted documents, the most a statement holds: narrow the period (dateFrom, dateTo)`;
