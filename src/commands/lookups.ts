import type { DocumentRef } from '../records/document/events.ts';
import type { CommandState } from '../records/registry.ts';
import type { Decide } from './decision.ts';

/** A read table whose highest id a decision may ask for (the next id of a new record). */
export type IdTable = 'products' | 'categories' | 'brands' | 'contractors';

/**
 * What a decision will read, as keys by kind of lookup, derived from its record's input before anything is
 * decided. A batch unions its records' lookups and reads each kind once, in bulk; a decider reading a key its
 * lookups did not name is a bug (the batch state throws).
 */
export interface Lookups {
  /** Products by id. */
  products?: number[];
  /** Products by sku: who holds the sku, and that product. */
  productSkus?: string[];
  /** Product groups by id, each with the groups above it (a group's parent chain is checked for cycles). */
  categories?: number[];
  /** Product groups by name, under any parent: who holds a name among its siblings. */
  categoryNames?: string[];
  /** Brands by id. */
  brands?: number[];
  /** Brands by name: who holds the name, and that brand. */
  brandNames?: string[];
  /** Contractors by id. */
  contractors?: number[];
  /** Contractor statuses by name: whether one exists. */
  contractorStatuses?: string[];
  /** Documents by type and id, each with every document its `basedOn` reaches (a link must not close a cycle). */
  documents?: DocumentRef[];
  /** The highest id of these tables. */
  highestIds?: IdTable[];
}

export type LookupKind = keyof Lookups;

/** A command's decision and the reads it needs: `lookups(input)` names every key `decide(input, state)` reads. */
export interface Decider<I, R> {
  decide: Decide<I, CommandState, R>;
  lookups(input: I): Lookups;
}

/** The given ids that are real references (not absent, not the top level's 0). */
export const ids = (...values: (number | null | undefined)[]): number[] => values.filter((v): v is number => v != null && v !== 0);
