import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { formatMoscow, isCalendarDate } from '../../lib/clock.ts';
import { fromKopecks } from '../../lib/money.ts';
import type { DocumentType } from '../../records/document/events.ts';
import { contractorHref, documentHref } from './links.ts';
import type { Texts } from './texts.ts';

/**
 * How the workbench shows values to people and reads them back, the same in both languages, as a Russian
 * accountant writes them: money `1 234 567,89 ₽`, dates `ДД.ММ.ГГГГ`, times in Moscow time.
 */

const rublesFormat = new Intl.NumberFormat('ru-RU', { style: 'currency', currency: 'RUB' });

/** An amount in rubles: `1 234 567,89 ₽`. */
export const rubles = (amount: number) => rublesFormat.format(amount);

/** An amount kept in kopecks, in rubles. */
export const kopecksAsRubles = (kopecks: number) => rubles(fromKopecks(kopecks));

/** `YYYY-MM-DD` (or the date part of a longer ISO text) as `ДД.ММ.ГГГГ`. */
export const day = (iso: string) => `${iso.slice(8, 10)}.${iso.slice(5, 7)}.${iso.slice(0, 4)}`;

/** `YYYY-MM-DD HH:MM:SS` (a Moscow time as the API shows it) as `ДД.ММ.ГГГГ ЧЧ:ММ:СС`. */
export const moscowText = (text: string) => `${day(text)} ${text.slice(11, 19)}`;

/** A moment in Moscow time: `ДД.ММ.ГГГГ ЧЧ:ММ:СС`. */
export const moment = (ms: number) => moscowText(formatMoscow(ms));

/** A stored UTC ISO time in Moscow time. */
export const moscowTime = (iso: string) => moment(Date.parse(iso));

const RUSSIAN_DATE = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/;
const RUSSIAN_MOMENT = /^(\d{1,2})\.(\d{1,2})\.(\d{4})[ T](\d{1,2}):(\d{2})(?::(\d{2}))?$/;
const two = (n: string) => n.padStart(2, '0');

/**
 * A date as typed into a form, `ДД.ММ.ГГГГ` (or `YYYY-MM-DD`), as the API writes it; any other text is given
 * back as it is, for the API's schema to refuse in its words.
 */
export function typedDate(text: string): string {
  const m = RUSSIAN_DATE.exec(text.trim());
  return m ? `${m[3]}-${two(m[2])}-${two(m[1])}` : text.trim();
}

/**
 * A moment as typed into a form, as the API reads moments (`YYYY-MM-DD HH:MM:SS`, Moscow time): `ДД.ММ.ГГГГ
 * ЧЧ:ММ[:СС]`, or a date alone (`ДД.ММ.ГГГГ`, `YYYY-MM-DD`), which means the end of that day. Anything else is
 * given back as it is.
 */
export function typedMoment(text: string): string {
  const trimmed = text.trim();
  const m = RUSSIAN_MOMENT.exec(trimmed);
  if (m) return `${m[3]}-${two(m[2])}-${two(m[1])} ${two(m[4])}:${m[5]}:${m[6] ?? '00'}`;
  const date = typedDate(trimmed);
  return isCalendarDate(date) ? `${date} 23:59:59` : trimmed;
}

/** A form's date field filled in again: an API date shown as people type it. */
export const dateValue = (value: string | undefined) => (value === undefined ? '' : isCalendarDate(value) ? day(value) : value);

/** Record fields the log keeps in kopecks, and the fields of a document's product lines that are. */
const KOPECK_FIELDS = new Set(['sum', 'vatSum', 'minPrice', 'purchasePrice', 'salePrice', 'price', 'pr_price', 'balance', 'bonusBalance']);
/** Fields of 0 or 1 and what each says: a document's flags and status, a contractor's part in the bonus programme. */
const CHOICE_FIELDS: Record<string, (t: Texts) => [string, string]> = {
  fiscal: (t) => [t.values.no, t.values.yes],
  vatIncluded: (t) => [t.values.no, t.values.yes],
  status: (t) => [t.status.notPosted, t.status.posted],
  'bonus.status': (t) => t.values.bonusStatus,
};
/** Record fields the log keeps as UTC ISO times. */
const TIME_FIELDS = new Set(['created', 'edited']);

/** Fields (list positions left out) whose values are the API's words, each said in the reader's words (`user.type`: `admin` → администратор). */
const WORD_FIELDS: Record<string, (t: Texts) => Record<string, string>> = { 'user.type': (t) => t.values.userTypes, 'basedOn.type': (t) => t.types };

/**
 * A value of a record's field (by its path) as stored in the log, as page text in the reader's words: money in
 * rubles, dates and times as people write them, yes and no, an empty list as none.
 */
export function storedText(t: Texts, path: string, value: unknown): string {
  const field = leafName(path);
  if (value === undefined || value === null) return '';
  if (typeof value === 'boolean') return value ? t.values.yes : t.values.no;
  if (typeof value === 'number' && KOPECK_FIELDS.has(field)) return kopecksAsRubles(value);
  if ((value === 0 || value === 1) && CHOICE_FIELDS[path] !== undefined) return CHOICE_FIELDS[path](t)[value];
  if (typeof value === 'string' && TIME_FIELDS.has(field) && !Number.isNaN(Date.parse(value))) return moscowTime(value);
  if (typeof value === 'string' && isCalendarDate(value)) return day(value);
  const words = WORD_FIELDS[path.replace(/\.\d+(?=\.|$)/g, '')];
  if (typeof value === 'string') return words === undefined ? value : (words(t)[value] ?? value);
  if (typeof value !== 'object') return String(value);
  if (Object.keys(value).length === 0) return t.values.none;
  return JSON.stringify(value);
}

/** A value nested in objects and lists, flattened to its leaves: `company.bankAccount.bic` → its value; an empty list or object is a leaf. */
export function leaves(value: unknown, path = ''): [string, unknown][] {
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((item, i) => [String(i + 1), item] as const) : Object.entries(value);
    if (entries.length === 0) return [[path, value]];
    return entries.flatMap(([key, item]) => leaves(item, path === '' ? key : `${path}.${key}`));
  }
  return [[path, value]];
}

/** A field's path in the reader's words: each name translated, list positions kept (`Строки 1 · Цена`). */
export const fieldLabel = (t: Texts, path: string) =>
  path
    .split('.')
    .map((part) => t.recordFields[part] ?? part)
    .join(' · ')
    .replace(/ · (\d+)(?= · |$)/g, ' $1');

/** The last name of a dotted field path, which says what kind of value it holds. */
export const leafName = (path: string) => path.slice(path.lastIndexOf('.') + 1);

/** A document's status as people say it. */
export const statusName = (t: Texts, status: unknown) => (status === 1 ? t.status.posted : status === 0 ? t.status.notPosted : String(status));

/** An event type's name in the reader's words (a type this release does not know, as the log holds it). */
export const eventName = (t: Texts, type: string) => (t.events as Record<string, string>)[type] ?? type;

/** A document type's name. */
export const typeName = (t: Texts, type: string) => t.types[type as DocumentType] ?? type;

/** A link to a document's page. */
export const documentLink = (type: string, id: number, text: string | HtmlEscapedString) => html`<a href="${documentHref(type, id)}">${text}</a>`;

/** A link to a contractor's page. */
export const contractorLink = (id: number, name: string | null) => html`<a href="${contractorHref(id)}">${name ?? `#${id}`}</a>`;
