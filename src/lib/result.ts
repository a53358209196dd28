/** Errors are values from commands up to http, which maps them to status codes. */
export interface DomainError {
  code: string;
  message: string;
  field?: string;
  index?: number;
}

export type Result<T> = { ok: true; value: T } | { ok: false; errors: DomainError[] };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(...errors: DomainError[]): Result<T> => ({ ok: false, errors });

/** `ERROR_` + the field in upper case with `_` between its camelCase words: salePrice → ERROR_SALE_PRICE. */
export function errorCodeFor(field: string): string {
  return 'ERROR_' + field.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}
