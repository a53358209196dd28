import type { Context } from 'hono';
import { html } from 'hono/html';
import type { z } from 'zod';
import type { DomainError } from '../../lib/result.ts';
import { parseQuery } from '../query.ts';
import { requestQuery } from '../node-request.ts';
import { typedDate, typedMoment } from './show.ts';
import type { Texts } from './texts.ts';

/** Fields that take a date, and those that take a moment, typed as people write them (`31.12.2025`). */
const DATE_FIELDS = new Set(['dateFrom', 'dateTo']);
const MOMENT_FIELDS = new Set(['at', 'since']);

/** A page's query as its form sends it, a field left blank being a field not given. */
function formQuery(c: Context): Record<string, string> {
  return Object.fromEntries(Object.entries(requestQuery(c)).filter(([, value]) => value.trim() !== ''));
}

/** The form's fields as the API's schemas read them: dates and moments typed as people write them turned into the API's form. */
function asApiQuery(query: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(query).map(([field, value]) => [field, DATE_FIELDS.has(field) ? typedDate(value) : MOMENT_FIELDS.has(field) ? typedMoment(value) : value]),
  );
}

/** The page's form parsed with the same schemas as the API; undefined when nothing was asked yet. */
export function readForm<S extends z.ZodType>(c: Context, schema: S): { asked: false } | { asked: true; ok: true; value: z.output<S> } | { asked: true; ok: false; errors: DomainError[] } {
  const query = formQuery(c);
  if (Object.keys(query).length === 0) return { asked: false };
  return { asked: true, ...parseQuery(schema, asApiQuery(query)) };
}

/** The fields as the form sent them, to fill the form in again. */
export const formValues = (c: Context) => formQuery(c);

/** What the document search's cursor says when it names no document. */
export const DOCUMENT_CURSOR = 'must name a document, e.g. sale-187';

const NUMBER_FIELDS = new Set(['id', 'contractor', 'after', 'offset', 'page']);
const CHOICE_FIELDS = new Set(['type', 'status', 'order']);

/** What was wrong with a field, in the reader's words, whatever the schema's own message said. */
function problemText(t: Texts, error: DomainError): string {
  const field = error.field ?? '';
  const label = t.fields[field] ?? field;
  // A page's cursor in the document search names a document; the log's are numbers.
  if (error.message.includes(DOCUMENT_CURSOR)) return t.problems.document;
  if (DATE_FIELDS.has(field)) return t.problems.date(label);
  if (MOMENT_FIELDS.has(field)) return t.problems.moment(label);
  if (NUMBER_FIELDS.has(field)) return t.problems.number(label);
  if (CHOICE_FIELDS.has(field)) return t.problems.choice(label);
  if (field === 'stream') return t.problems.record(label);
  if (error.message.includes('at most')) return t.problems.tooLong(label);
  return t.problems.other(label);
}

/** A form's problems, one a field. */
export const problems = (t: Texts, errors: DomainError[]) =>
  html`<div class="bad" role="alert"><p>${t.problems.heading}</p><ul>${errors.map((e) => html`<li data-field="${e.field ?? ''}">${problemText(t, e)}</li>`)}</ul></div>`;

/** A problem of the form as a whole (not of one field), shown as the field problems are. */
export const formProblem = (t: Texts, text: string) => html`<div class="bad" role="alert"><p>${t.problems.heading}</p><ul><li>${text}</li></ul></div>`;

/** A date input that takes `ДД.ММ.ГГГГ` (and the ISO form) and shows the value as people write it. */
export const dateInput = (t: Texts, name: string, value: string, required = false) =>
  html`<input name="${name}" inputmode="numeric" size="11" placeholder="${t.common.datePlaceholder}" pattern="\\d{1,2}\\.\\d{1,2}\\.\\d{4}|\\d{4}-\\d{2}-\\d{2}" value="${value}"${required ? html` required` : ''}>`;
