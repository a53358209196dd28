import type { DomainEvent } from './registry.ts';

/** A record's state before an event, asked lazily: events that create a record never ask (see folds.ts). */
export type Current<S> = () => S | undefined;

/** The events of the given types, as readers see them. */
export type EventOf<T extends DomainEvent['type']> = Extract<DomainEvent, { type: T }>;

/** Fails the type check when a `switch` misses an event type (given the event, or its type when it is the only one). */
export function unfolded(missed: never): never {
  throw new Error(`no fold for ${JSON.stringify(missed)}`);
}
