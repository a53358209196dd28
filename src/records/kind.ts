import type { z } from 'zod';
import type { EventDefinition } from '../events/define.ts';
import type { Current } from '../events/fold.ts';
import type { Upcaster } from '../events/upcasters.ts';
import type { BulkReads, IdTable } from '../projections/bulk-reads.ts';
import type { AsyncReads } from '../storage/async-reads.ts';
import type { Answers, BatchView } from './batch-view.ts';

/**
 * A kind of record, declared once (as Emmett's deciders are, `{decide, evolve, initialState}`): its event types
 * and their upcasters, its one fold, the state its deciders read and the lookups that state is read by. The
 * registry (`registry.ts`) lists the kinds; the event registry, the folds of every reader and a batch's reads are
 * derived from it. The deciders themselves are beside the kind (`<kind>/deciders.ts`), each naming its lookups.
 */
export interface RecordKind<S extends object, D extends readonly EventDefinition[], St extends object, L extends Lookups> {
  /** Its event types (current schema version each), and the steps that bring older versions up to them. */
  readonly events: D;
  readonly upcasters?: readonly Upcaster[];
  /**
   * How each of its events changes its record. The record before the event is asked lazily: events that create a
   * record never ask. An event that changes a record not known leaves it unknown (undefined).
   */
  evolve(current: Current<S>, event: EventsOf<D>): S | undefined;
  /** The lookups its deciders may name, each kind of key read in bulk once a batch. */
  readonly lookups?: L;
  /** The state its deciders read, answered from what a batch read for its lookups and the batch's own events. */
  state?(batch: BatchView): St;
  /** The record an event of it changes, as the deciders' state answers it (a batch folds its own events over it). */
  current?(state: St, event: EventsOf<D>): S | undefined;
  /** The table its ids are counted in: a batch takes the next id after the highest and its own. */
  readonly idTable?: IdTable;
  /** The key a record holds alone among its kind (a product's sku), as the batch keeps its owner. */
  uniqueKey?(record: S): string;
}

/** The events of some definitions, as readers see them (current schema version). */
export type EventsOf<D extends readonly EventDefinition[]> = { [E in D[number] as E['type']]: { type: E['type']; data: z.infer<E['schema']> } }[D[number]['type']];

/** The bulk reads a batch's lookups are answered from, as the storage seam answers them. */
export type StateSource = AsyncReads<BulkReads>;

/** One kind of lookup: the keys deciders name, read all at once into the batch's answers. */
export interface LookupRead<K> {
  read(source: StateSource, keys: K[], answers: Answers): Promise<void>;
  /** Keys that are objects are told apart by this (the same key named twice is read once). */
  identity?(key: K): unknown;
}

/** Lookups by name. */
export type Lookups = Record<string, LookupRead<never>>;

/** Declares a kind of lookup whose keys are `K`. */
export const lookup = <K>(read: LookupRead<K>['read'], identity?: (key: K) => unknown): LookupRead<K> => ({ read, identity });

/** A kind, its types kept exact for the registry to derive from. */
export const recordKind = <S extends object, D extends readonly EventDefinition[], St extends object = object, L extends Lookups = Record<never, never>>(
  kind: RecordKind<S, D, St, L>,
): RecordKind<S, D, St, L> => kind;
