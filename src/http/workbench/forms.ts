import type { Context } from 'hono';
import { html } from 'hono/html';
import type { z } from 'zod';
import type { DomainError } from '../../lib/result.ts';
import { parseQuery } from '../query.ts';
import { requestQuery } from '../node-request.ts';

/** A page's query as its form sends it, a field left blank being a field not given. */
function formQuery(c: Context): Record<string, string> {
  return Object.fromEntries(Object.entries(requestQuery(c)).filter(([, value]) => value.trim() !== ''));
}

/** The page's form parsed with the same schemas as the API; undefined when nothing was asked yet. */
export function readForm<S extends z.ZodType>(c: Context, schema: S): { asked: false } | { asked: true; ok: true; value: z.output<S> } | { asked: true; ok: false; errors: DomainError[] } {
  const query = formQuery(c);
  if (Object.keys(query).length === 0) return { asked: false };
  return { asked: true, ...parseQuery(schema, query) };
}

/** The fields as the form sent them, to fill the form in again. */
export const formValues = (c: Context) => formQuery(c);

export const problems = (errors: DomainError[]) => html`<ul class="bad">${errors.map((e) => html`<li>${e.message}</li>`)}</ul>`;
