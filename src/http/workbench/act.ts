import { readCompanyDetails } from '../../audit/company-details.ts';
import type { StatementLine, StatementTotals, StatementWalk } from '../../audit/statement.ts';
import type { Company } from '../../company.ts';
import { type Texts, ru } from './texts.ts';
import { day, typeName } from './show.ts';

/** How a party signs: an organisation (ЮЛ) through a representative, an individual entrepreneur (ИП) or a person (ФЛ) himself. */
export type PartyKind = 'ЮЛ' | 'ИП' | 'ФЛ';
const KINDS: readonly string[] = ['ЮЛ', 'ИП', 'ФЛ'];

/** One side of an act: its name, taxpayer numbers and how it signs. */
export interface Party {
  name: string;
  inn: string | null;
  kpp: string | null;
  kind: PartyKind;
}

/** The company's side: who signs for it, when its details name them. */
export interface CompanyParty extends Party {
  director: string | null;
  accountant: string | null;
}

/**
 * An акт сверки взаимных расчётов as one side (the company) prepares it: the statement's figures from the
 * company's books under "по данным" of the company, the contractor's half left for them to fill. The company is
 * named by its details in force on the act's last day (`tradebook company set`); undefined when none are set.
 * Sign convention (the page, the XLSX and both CSVs): a debt of the contractor to the company is a debit balance,
 * a debt of the company to the contractor a credit one; the statement's balance (the contractor's `balance`) is
 * credit minus debit.
 */
export interface Act {
  company: CompanyParty | undefined;
  contractor: Party & { id: number };
  statement: StatementWalk;
}

/** A contractor's kind as its `type` names it; an unknown type signs as an organisation does. */
export const partyKind = (type: string | null | undefined): PartyKind => (KINDS.includes(type ?? '') ? (type as PartyKind) : 'ЮЛ');

export async function actOf(tb: Company, statement: StatementWalk, contractor: Party & { id: number }): Promise<Act> {
  const details = await readCompanyDetails(tb.audit, statement.dateTo);
  const company = details && { name: details.name, inn: details.inn, kpp: details.kpp, kind: details.inn.length === 12 ? 'ИП' : 'ЮЛ', director: details.director, accountant: details.accountant } satisfies CompanyParty;
  return { company, contractor, statement };
}

/** The company as the act names it: its name, or that its details are not set. */
const companyName = (t: Texts, act: Act) => act.company?.name ?? t.statement.companyUnknown;

/** A balance of the statement as the act's debit and credit: a debt of the contractor is a debit, zero is 0,00 on both sides. */
export const balanceSides = (balance: number): { debit: number | null; credit: number | null } =>
  balance < 0 ? { debit: -balance, credit: null } : balance > 0 ? { debit: null, credit: balance } : { debit: 0, credit: 0 };

/** A balance told in the act's terms: the amount and its side (`417 632,48 ₽ по дебету (долг контрагента)`). */
export function balanceInWords(t: Texts, balance: number, formatMoney: (rubles: number) => string): string {
  if (balance === 0) return formatMoney(0);
  return balance < 0 ? t.statement.debitBalance(formatMoney(-balance)) : t.statement.creditBalance(formatMoney(balance));
}

/** A party with its taxpayer numbers: `ООО «Ромашка», ИНН 7701…, КПП 7701…`. */
export const partyLine = (t: Texts, party: Pick<Party, 'name' | 'inn' | 'kpp'> | undefined) =>
  party === undefined
    ? t.statement.companyUnknown
    : [party.name, party.inn && `${t.statement.inn} ${party.inn}`, party.kpp && `${t.statement.kpp} ${party.kpp}`].filter(Boolean).join(', ');

/** The act's opening sentence: each side as it signs. */
export const preamble = (t: Texts, act: Act) =>
  t.statement.preamble(act.company ? t.statement.side(act.company.kind, act.company.name) : t.statement.companyUnknown, t.statement.side(act.contractor.kind, act.contractor.name));

/** Each side's signature block: whose it is, and the company's signers named when its details name them. */
export function signatureBlocks(t: Texts, act: Act): { heading: string; signers: string[] }[] {
  const company = act.company;
  const companySigners = company === undefined || company.kind !== 'ЮЛ' ? [] : [company.director && t.statement.director(company.director), company.accountant && t.statement.accountant(company.accountant)].filter((line) => typeof line === 'string');
  return [
    { heading: company ? t.statement.signatures(company.kind, company.name) : t.statement.companyUnknown, signers: companySigners },
    { heading: t.statement.signatures(act.contractor.kind, act.contractor.name), signers: [] },
  ];
}

/** A document of the act as it is written there: `Отгрузка № О-3 от 02.11.2026`. */
export const actDocument = (t: Texts, line: StatementLine) =>
  line.number ? t.statement.documentWithNumber(typeName(t, line.type), line.number, day(line.date)) : t.statement.documentNoNumber(typeName(t, line.type), day(line.date));

/** Who owes whom at the end of the period, as the act's closing sentence says it. */
export function closingSentence(t: Texts, act: Act, closing: number, formatMoney: (rubles: number) => string): string {
  const { dateTo } = act.statement;
  if (closing === 0) return t.statement.settled(day(dateTo));
  const contractor = act.contractor.name;
  const company = companyName(t, act);
  const [debtor, creditor] = closing < 0 ? [contractor, company] : [company, contractor];
  return t.statement.owes(debtor, creditor, day(dateTo), formatMoney(Math.abs(closing)));
}

/** A cell of the act written to a file: text, an amount in rubles, or a date (`YYYY-MM-DD`). */
export type ActCell = string | { rubles: number } | { date: string } | null;

const money = (value: number | null): ActCell => (value === null ? null : { rubles: value });
const sides = (balance: number): ActCell[] => {
  const { debit, credit } = balanceSides(balance);
  return [money(debit), money(credit)];
};
const BLANK_HALF = [null, null, null, null];

/**
 * The act's rows above its documents, as printed: the title, the period, the parties, the two halves' headings
 * and the opening balance. `headerRow` is the index of the halves' headings (the table starts there).
 */
export function actHeadRows(t: Texts, act: Act): { rows: ActCell[][]; headerRow: number } {
  const s = act.statement;
  const columns = t.statement.columns;
  const rows: ActCell[][] = [
    [t.statement.title],
    [t.statement.heading(day(s.dateFrom), day(s.dateTo))],
    [t.statement.between(partyLine(t, act.company), partyLine(t, act.contractor))],
    [preamble(t, act)],
    act.company === undefined ? [t.statement.companyUnset(day(s.dateTo))] : [],
  ];
  const headerRow = rows.length;
  rows.push(
    [t.statement.byData(companyName(t, act)), null, null, null, t.statement.byData(act.contractor.name)],
    [columns.date, columns.document, columns.debit, columns.credit, columns.date, columns.document, columns.debit, columns.credit],
    [null, t.statement.opening, ...sides(s.opening), ...BLANK_HALF],
  );
  return { rows, headerRow };
}

/** One document's row of the act. */
export const actLineRow = (t: Texts, line: StatementLine): ActCell[] => [{ date: line.date }, actDocument(t, line), money(line.debit), money(line.credit), ...BLANK_HALF];

/**
 * The act's rows below its documents: the turnover and the closing balance (the table's last rows), the sentences
 * of who owes whom and of the sign convention, and each side's signatures.
 */
export function actFootRows(t: Texts, act: Act, totals: StatementTotals, formatMoney: (rubles: number) => string): { table: ActCell[][]; sentences: ActCell[][]; signatures: ActCell[][] } {
  const [company, contractor] = signatureBlocks(t, act);
  return {
    table: [
      [null, t.statement.turnover, money(totals.debit), money(totals.credit), ...BLANK_HALF],
      [null, t.statement.closing, ...sides(totals.closing), ...BLANK_HALF],
    ],
    sentences: [[], [closingSentence(t, act, totals.closing, formatMoney)], [t.statement.balanceNote], []],
    signatures: [
      [company.heading, null, null, null, contractor.heading],
      ...company.signers.map((signer) => [signer]),
      // Named signers sign on their own lines; a side without them on a blank one.
      [company.signers.length > 0 ? null : t.statement.signatureLine, null, null, null, t.statement.signatureLine],
      [t.statement.stamp, null, null, null, t.statement.stamp],
    ],
  };
}

/** The act's foot rows in order, as a CSV writes them. */
export const footRowsInOrder = (foot: ReturnType<typeof actFootRows>) => [...foot.table, ...foot.sentences, ...foot.signatures];

/** The act's files are in Russian when asked through the API, which has no reader's language. */
export const API_ACT_TEXTS = ru;
