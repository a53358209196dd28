import type { NewEvent } from '../events/store.ts';
import { canonicalJson } from '../lib/canonical-json.ts';
import type { Result } from '../lib/result.ts';

/** What a command decides: the events to append and the answer to give for its record. */
export interface Decision<R> {
  events: NewEvent[];
  result: R;
}

export type Decide<I, S, R> = (input: I, state: S) => Result<Decision<R>>;

/**
 * Only the keys whose value differs from the current one: an edit event carries what changed, nothing else.
 * Compared canonically, so a stored record read back with sorted keys equals the same value built in another order.
 */
export function changedFields<T extends object>(current: T, next: Partial<T>): Partial<T> {
  const changes: Partial<T> = {};
  for (const key of Object.keys(next) as (keyof T)[]) {
    const value = next[key];
    if (value !== undefined && !sameValue(value, current[key])) changes[key] = value;
  }
  return changes;
}

/** Equal as stored: plain values directly (the common case: prices, names), objects and arrays in canonical form. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === null || typeof a !== 'object' || b === null || typeof b !== 'object') return a === b;
  return canonicalJson(a) === canonicalJson(b);
}
