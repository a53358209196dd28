import type { EventMeta, EventStore } from '../events/store.ts';
import { type DomainError, fail, ok, type Result } from '../lib/result.ts';
import type { Decide } from '../commands/decision.ts';

/**
 * Decides every record in order, each against the state the earlier ones left (so a batch may add a group
 * and then a subgroup of it), appending each record's events as it goes. Every problem is collected with
 * its record's index; `known` are problems found before (records that did not parse are `undefined` in `inputs`
 * and skipped). Must run inside a transaction that the caller rolls back when the result is a failure.
 */
export function decideBatch<I, S, R>(
  inputs: (I | undefined)[],
  decide: Decide<I, S, R>,
  state: S,
  store: EventStore,
  meta: EventMeta,
  known: DomainError[] = [],
): Result<R[]> {
  const results: R[] = [];
  const errors: DomainError[] = [...known];
  inputs.forEach((input, index) => {
    if (input === undefined) return;
    const decision = decide(input, state);
    if (!decision.ok) {
      errors.push(...decision.errors.map((e) => ({ ...e, index })));
      return;
    }
    store.append(decision.value.events, meta);
    results.push(decision.value.result);
  });
  return errors.length > 0 ? fail(...errors.sort((a, b) => (a.index ?? 0) - (b.index ?? 0))) : ok(results);
}
