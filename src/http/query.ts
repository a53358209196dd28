import { z } from 'zod';
import { type CodeOverrides, issuesToErrors } from '../lib/validation.ts';
import { type DomainError } from '../lib/result.ts';
import type { QueryInteger } from './openapi.ts';

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

/** Parses the query with a zod schema; each bad parameter becomes its own error (`limit` → ERROR_LIMIT). */
export function parseQuery<S extends z.ZodType>(
  schema: S,
  query: Record<string, string>,
  overrides: CodeOverrides = {},
): { ok: true; value: z.output<S> } | { ok: false; errors: DomainError[] } {
  const parsed = schema.safeParse(query);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, errors: issuesToErrors(parsed.error.issues, overrides) };
}
