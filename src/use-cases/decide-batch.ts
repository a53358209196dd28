import type { CommandState } from '../commands/command-state.ts';
import type { Decide, Decision } from '../commands/decision.ts';
import type { EventMeta, EventStore, NewEvent } from '../events/store.ts';
import { type DomainError, fail, ok, type Result } from '../lib/result.ts';
import { BatchState, type StateSource } from './batch-state.ts';

/**
 * Decides every record in order, each against the state the earlier ones left (so a batch may add a group
 * and then a subgroup of it), then appends the whole batch's events at once. The records the batch asks for
 * are read up front in a few queries, and the last round of that reading decides the batch (`BatchState`).
 * Every problem is collected with its record's index; `known` are problems found before (records that did not
 * parse are `undefined` in `inputs` and skipped).
 * Must run inside a transaction that the caller rolls back when the result is a failure.
 */
export function decideBatch<I, R>(
  inputs: (I | undefined)[],
  decide: Decide<I, CommandState, R>,
  source: StateSource,
  store: EventStore,
  meta: EventMeta,
  known: DomainError[] = [],
): Result<R[]> {
  const state = new BatchState(source);
  const eventsOf = (decision: Result<Decision<R>>) => (decision.ok ? decision.value.events : undefined);
  const decisions =
    state.decideAhead(inputs, (input) => decide(input, state), eventsOf) ??
    inputs.map((input) => {
      if (input === undefined) return undefined;
      const decision = decide(input, state);
      state.evolve(eventsOf(decision) ?? []);
      return decision;
    });
  const events: NewEvent[] = [];
  const results: R[] = [];
  const errors: DomainError[] = [...known];
  decisions.forEach((decision, index) => {
    if (decision === undefined) return;
    if (!decision.ok) {
      errors.push(...decision.errors.map((e) => ({ ...e, index })));
      return;
    }
    events.push(...decision.value.events);
    results.push(decision.value.result);
  });
  if (errors.length > 0) return fail(...errors.sort((a, b) => (a.index ?? 0) - (b.index ?? 0)));
  store.append(events, meta);
  return ok(results);
}
