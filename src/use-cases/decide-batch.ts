import type { Decision } from '../commands/decision.ts';
import type { Decider } from '../commands/lookups.ts';
import type { EventMeta, NewEvent } from '../events/store.ts';
import { type DomainError, fail, ok, type Result } from '../lib/result.ts';
import type { EventLog } from '../storage/port.ts';
import { BatchState, type StateSource } from './batch-state.ts';

/** A batch applied: each record's answer, and how many events it appended. */
export interface AppliedBatch<R> {
  results: R[];
  events: number;
}

/**
 * Decides every record in order, each against the state the earlier ones left (so a batch may add a group
 * and then a subgroup of it), then appends the whole batch's events at once. What the records' lookups name is
 * read up front, a bulk read per kind (`BatchState`). Every problem is collected with its record's index; `known`
 * are problems found before (records that did not parse are `undefined` in `inputs` and skipped).
 * Must run in a unit of work of the writer, which undoes it when the result is a failure.
 */
export async function decideBatch<I, R>(
  inputs: (I | undefined)[],
  decider: Decider<I, R>,
  source: StateSource,
  log: EventLog,
  meta: EventMeta,
  known: DomainError[] = [],
): Promise<Result<AppliedBatch<R>>> {
  const decisions = await decideRecords(inputs, decider, source);
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
  const appended = await log.append(events, meta);
  return ok({ results, events: appended.length });
}

/**
 * Each record's decision, each against the state the earlier ones' events left (a refused record leaves none),
 * on a state read up front for them all, each record decided once. Nothing is appended: the caller chooses what
 * a refusal means.
 */
export async function decideRecords<I, R>(inputs: (I | undefined)[], decider: Decider<I, R>, source: StateSource): Promise<(Result<Decision<R>> | undefined)[]> {
  const state = new BatchState(source);
  await state.read(inputs.flatMap((input) => (input === undefined ? [] : [decider.lookups(input)])));
  return state.decideEach(
    inputs,
    (input, current) => decider.decide(input, current),
    (decision: Result<Decision<R>>) => (decision.ok ? decision.value.events : undefined),
  );
}
