import type { Current } from '../events/fold.ts';
import type { IdTable } from '../projections/bulk-reads.ts';
import type { DomainEvent } from '../events/registry.ts';
import { brand } from './brand/kind.ts';
import { category } from './category/kind.ts';
import { company } from './company/kind.ts';
import { contractor, contractorStatus } from './contractor/kind.ts';
import { document } from './document/kind.ts';
import { importRun } from './import-run/kind.ts';
import { type LookupRead, lookup } from './kind.ts';
import { product } from './product/kind.ts';

/**
 * Every kind of record, each declared in its module (`kind.ts`: see `RecordKind`). Adding a kind is a module and a
 * line here: the event registry (events/registry.ts), the fold of any event (`evolveRecord`), the deciders' state
 * (`CommandState`) and the lookups a batch reads (`Lookups`, `lookupReads`) are derived from this list.
 */
export const recordKinds = [product, category, brand, contractor, contractorStatus, document, importRun, company] as const;

type Kind = (typeof recordKinds)[number];

/** Every event definition of every kind. */
export type KindEventDefinition = Kind['events'][number];
// Each distributes over the kinds (a conditional type on a naked parameter).
type StateOf<K> = K extends { state?(batch: never): infer St } ? St : never;
type LookupsOf<K> = K extends { readonly lookups?: infer L } ? NonNullable<L> : never;
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** Any record's state, by the kind its events name. */
export type RecordState = NonNullable<ReturnType<Kind['evolve']>>;

/** Everything the deciders may read: every kind's state. */
export type CommandState = UnionToIntersection<StateOf<Kind>>;


/** The highest id of these tables (the next id of a new record is after it and the batch's own). */
const highestIds = lookup<IdTable>(async (source, tables, answers) => {
  for (const [table, highest] of await source.highestIds(tables)) answers.set('highestIds', table, highest);
});

type Declared = UnionToIntersection<LookupsOf<Kind>> & { highestIds: typeof highestIds };

/**
 * What a decision will read, as keys by kind of lookup, derived from its record's input before anything is
 * decided. A batch unions its records' lookups and reads each kind once, in bulk; a decider reading a key its
 * lookups did not name is a bug (the batch's answers throw).
 */
export type Lookups = { [L in keyof Declared]?: Declared[L] extends LookupRead<infer K> ? K[] : never };

/** Every kind of lookup, by name, with its bulk read. */
export const lookupReads = new Map<string, LookupRead<never>>([
  ...recordKinds.flatMap((kind): [string, LookupRead<never>][] => Object.entries(kind.lookups ?? {})),
  ['highestIds', highestIds],
]);

/** The kind of each event type. */
const kindOf = new Map<string, Kind>(recordKinds.flatMap((kind) => kind.events.map((definition) => [definition.type, kind] as const)));

/** The kind whose event this is. */
export const recordKindOf = (event: DomainEvent): Kind => kindOf.get(event.type)!;

/** The fold of the event's own kind, for a reader of any stream (the audit, the deciders' specs). */
export const evolveRecord = (current: Current<RecordState>, event: DomainEvent): RecordState | undefined =>
  (recordKindOf(event).evolve as (current: Current<RecordState>, event: DomainEvent) => RecordState | undefined)(current, event);
