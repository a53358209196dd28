import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { formatMoscow } from '../../lib/clock.ts';
import { fromKopecks } from '../../lib/money.ts';
import { documentHref } from './links.ts';

/** How the workbench shows stored values to people: money in rubles, times in Moscow time. */

const rublesFormat = new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** An amount in rubles as people read it: `12 345,50`. */
export const rubles = (amount: number) => rublesFormat.format(amount);

/** An amount kept in kopecks, in rubles. */
export const kopecksAsRubles = (kopecks: number) => rubles(fromKopecks(kopecks));

/** A stored UTC ISO time in Moscow time, with its offset. */
export const moscowTime = (iso: string) => `${formatMoscow(Date.parse(iso))} MSK`;

/** Record fields the log keeps in kopecks, and the fields of a document's product lines that are. */
const KOPECK_FIELDS = new Set(['sum', 'vatSum', 'minPrice', 'purchasePrice', 'salePrice', 'price', 'pr_price']);
/** Record fields the log keeps as UTC ISO times. */
const TIME_FIELDS = new Set(['created', 'edited']);

/** A value of a record's field as stored in the log, in the units the API shows: kopecks as rubles, times in Moscow. */
export function shownValue(field: string, value: unknown): unknown {
  if (typeof value === 'number' && KOPECK_FIELDS.has(field)) return fromKopecks(value);
  if (typeof value === 'string' && TIME_FIELDS.has(field) && !Number.isNaN(Date.parse(value))) return formatMoscow(Date.parse(value));
  if (Array.isArray(value)) return value.map((item) => shownValue(field, item));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shownValue(key, item)]));
  return value;
}

/** A field's value as page text: absent is empty, a string as it is, anything else as compact JSON. */
export function fieldText(field: string, value: unknown): string {
  if (value === undefined) return '';
  const shown = shownValue(field, value);
  return typeof shown === 'string' ? shown : JSON.stringify(shown);
}

/** A document's status as people say it. */
export const statusName = (status: unknown) => (status === 1 ? 'posted' : status === 0 ? 'not posted' : String(status));

/** A link to a document's page. */
export const documentLink = (type: string, id: number, text: string | HtmlEscapedString = `${type} ${id}`) =>
  html`<a href="${documentHref(type, id)}">${text}</a>`;
