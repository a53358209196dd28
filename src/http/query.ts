import { zValidator } from '@hono/zod-validator';
import type { MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { type CodeOverrides, issuesToErrors } from '../lib/validation.ts';
import { type DomainError } from '../lib/result.ts';
import type { QueryInteger } from './openapi.ts';
import type { AppEnv } from './env.ts';
import { headerLookupsFromNode } from './node-request.ts';
import { sendErrors } from './respond.ts';

/** Query-string integers: decimal digits only (no sign, fraction or exponent), within 0..2^53−1 and the given range. */
export const queryInt = (min: number, max = Number.MAX_SAFE_INTEGER) => {
  const range = max === Number.MAX_SAFE_INTEGER ? `a whole number from ${min}` : `a whole number from ${min} to ${max}`;
  return z
    .string()
    .regex(/^\d{1,16}$/, `must be ${range}, written in decimal`)
    .transform(Number)
    .pipe(z.number().int().min(min, `must be ${range}`).max(max, `must be ${range}`))
    .meta({ queryInteger: { minimum: min, maximum: max } } satisfies QueryInteger);
};

export const pagingQuery = (maxLimit: number) =>
  z.object({
    limit: queryInt(1, maxLimit).optional().default(maxLimit),
    offset: queryInt(0).optional().default(0),
  });

/** A handler's input once `validQuery` passed: the query as the schema's output. */
export type ValidQuery<S extends z.ZodType> = { in: { query: Record<string, string> }; out: { query: z.output<S> } };

/**
 * The query validated by the stack's validator (@hono/zod-validator) before the handler runs, after the key is
 * checked: every bad parameter its own error (`limit` → ERROR_LIMIT) in one 400, the handler reading the parsed
 * values with `c.req.valid('query')`. A parameter given twice counts with its first value, as hono's `query()`
 * reads it.
 */
export function validQuery<S extends z.ZodType>(schema: S, overrides: CodeOverrides = {}): MiddlewareHandler<AppEnv, string, ValidQuery<S>> {
  const validate = zValidator(
    'query',
    schema,
    (result, c) => {
      if (!result.success) return sendErrors(c, 400, issuesToErrors(result.error.issues, overrides));
    },
    // The cast: the library's result type is conditional on a schema that is generic here.
    { validationFunction: (s, query) => s.safeParse(firstValues(query)) as never },
  );
  return (c, next) => {
    headerLookupsFromNode(c);
    return validate(c as never, next);
  };
}

const firstValues = (query: Record<string, string | string[]>) => Object.fromEntries(Object.entries(query).map(([name, value]) => [name, Array.isArray(value) ? value[0] : value]));

/** Parses a query the validator does not stand in front of (the workbench's forms); each bad parameter its own error. */
export function parseQuery<S extends z.ZodType>(
  schema: S,
  query: Record<string, string>,
  overrides: CodeOverrides = {},
): { ok: true; value: z.output<S> } | { ok: false; errors: DomainError[] } {
  const parsed = schema.safeParse(query);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, errors: issuesToErrors(parsed.error.issues, overrides) };
}
