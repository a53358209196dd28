import { z } from 'zod';
import { isCalendarDate } from './clock.ts';
import { toKopecks } from './money.ts';
import { type DomainError, errorCodeFor } from './result.ts';
import { xmlForbiddenIn } from './xml-text.ts';

/** Building blocks of the write records' schemas, and the mapping of their issues to the spec's error names. */

const MAX_ID = Number.MAX_SAFE_INTEGER;

function characters(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * A string of at most `max` characters (not bytes), holding only characters XML 1.0 can: no lone surrogate (it
 * could not be stored as UTF-8), no U+0000 (PostgreSQL refuses it in text; SQLite would store it, and both engines
 * must give the same answers), no other C0 control but tab, LF and CR, no U+FFFE or U+FFFF (an XLSX holding one
 * is a file Excel refuses).
 */
export const text = (max = 255) =>
  z
    .string()
    .superRefine((s, ctx) => {
      const forbidden = xmlForbiddenIn(s);
      if (forbidden !== undefined) ctx.addIssue({ code: 'custom', message: `must not contain the character ${forbidden}` });
    })
    .refine((s) => s.length <= max || characters(s) <= max, `must be at most ${max} characters`);

/** A required string: present, not empty and not only white space. */
export const requiredText = (max = 255) => text(max).refine((s) => s.trim().length > 0, 'must not be empty');

/** A whole number from 0 to 2^53−1. */
export const wholeNumber = () => z.number().int().min(0).max(MAX_ID);

/** A record id: a whole number from 1. */
export const recordId = () => z.number().int().min(1).max(MAX_ID);

/** A non-negative amount with at most two decimals, turned into integer kopecks. */
export const money = () =>
  z
    .number()
    .min(0)
    .refine((v) => toKopecks(v) !== undefined, 'must have at most two decimals')
    .transform((v) => toKopecks(v)!);

/** A day as YYYY-MM-DD that is a real date. */
export const calendarDate = () => z.string().refine(isCalendarDate, 'must be a real date YYYY-MM-DD');

/** A finite number (weights, dimensions, counts). */
export const quantity = () => z.number().min(0).max(1e15);

export type CodeOverrides = Record<string, string>;

/** What a value of each kind zod expects is called in a message. */
const KINDS: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'text',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
};

/** A bound of a number, a text's length or a list's size, in words. */
function bound(issue: { origin: string; inclusive?: boolean }, limit: number | bigint, atMost: boolean): string {
  const within = `${atMost ? 'at most' : 'at least'} ${limit}`;
  if (issue.origin === 'string') return `must be ${within} characters`;
  if (issue.origin === 'array' || issue.origin === 'set') return `must have ${within} entries`;
  if (issue.inclusive === false) return `must be ${atMost ? 'below' : 'above'} ${limit}`;
  return `must be ${within}`;
}

const listed = (values: readonly unknown[]) => (values.length === 1 ? JSON.stringify(values[0]) : `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`);

/** A zod issue as a person reads it: what the value must be. Our own refinements already speak so (`custom`). */
function readable(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.message.endsWith('received null')) return 'must not be null';
      return `must be ${KINDS[issue.expected] ?? issue.expected}`;
    case 'too_big':
      return bound(issue, issue.maximum, true);
    case 'too_small':
      return bound(issue, issue.minimum, false);
    case 'invalid_value':
      return `must be ${listed(issue.values)}`;
    case 'invalid_union': {
      // A choice of literals (`0 or 1`): name them; any other union says it matched none of its forms.
      const values = issue.errors.flat().flatMap((e) => (e.code === 'invalid_value' ? e.values : [undefined]));
      return values.every((v) => v !== undefined) ? `must be ${listed(values)}` : 'matches none of the accepted forms';
    }
    case 'unrecognized_keys':
      return `has unknown fields: ${issue.keys.join(', ')}`;
    case 'invalid_format':
      // A pattern's own message says what the text must be; "a valid regex" would name only how it is checked.
      return issue.format === 'regex' ? issue.message : `must be a valid ${issue.format}`;
    default:
      return issue.message;
  }
}

/** Where in the record an issue is: `discount`, `bonus.percent`, `banks[0].bik`. */
function pathOf(issue: z.core.$ZodIssue): string {
  return issue.path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`)).join('');
}

/**
 * Each zod issue becomes an error named after the field it concerns (`categoryId` → ERROR_CATEGORY_ID), with a
 * message a person understands (`discount: must be at most 100`); one error a field.
 */
export function issuesToErrors(issues: z.core.$ZodIssue[], overrides: CodeOverrides, index?: number): DomainError[] {
  const seen = new Set<string>();
  const errors: DomainError[] = [];
  for (const issue of issues) {
    const field = String(issue.path[0] ?? '');
    if (seen.has(field)) continue; // one error per field is enough to fix it
    seen.add(field);
    const missing = issue.code === 'invalid_type' && issue.message.endsWith('received undefined');
    const where = pathOf(issue) || field;
    errors.push({
      // Own keys only: a field named `constructor` or `toString` is not an override inherited from Object.
      code: Object.hasOwn(overrides, field) ? overrides[field] : errorCodeFor(field),
      message: missing ? `${where} is required` : `${where}: ${readable(issue)}`,
      field,
      ...(index === undefined ? {} : { index }),
    });
  }
  return errors;
}

/** Parses one record; a value that is not an object is an error of the wrapper itself. */
export function parseRecord<S extends z.ZodType>(
  schema: S,
  value: unknown,
  overrides: CodeOverrides,
  wrapperCode: string,
  index?: number,
): { ok: true; value: z.output<S> } | { ok: false; errors: DomainError[] } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, errors: [{ code: wrapperCode, message: 'each record must be an object', ...(index === undefined ? {} : { index }) }] };
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, errors: issuesToErrors(parsed.error.issues, overrides, index) };
}
