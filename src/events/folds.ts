import type { BrandRecord, CategoryRecord, ProductRecord } from './catalogue.ts';
import type { ContractorRecord } from './contractors.ts';
import type { DocumentRecord } from './documents.ts';
import type { ImportRun } from './imports.ts';
import type { DomainEvent } from './registry.ts';

/**
 * How each event changes the record of its stream, written once for every reader of records: the state the
 * deciders read (the batch's own decisions laid over the read tables), the projectors, the audit's record as of a
 * moment. Each kind's `switch` is exhaustive, so an event type added to the catalogue fails the type check until
 * it is folded here.
 *
 * A fold is given its record's state lazily: events that create a record never ask for it, so a batch adding a
 * product does not read whether its new id exists. An event that changes a record not known leaves it unknown.
 */
export type Current<S> = () => S | undefined;

type EventOf<T extends DomainEvent['type']> = Extract<DomainEvent, { type: T }>;

export type ProductEvent = EventOf<'ProductAdded' | 'ProductEdited' | 'ProductPricesUpdated'>;
export type CategoryEvent = EventOf<'CategoryAdded' | 'CategoryEdited'>;
export type BrandEvent = EventOf<'BrandAdded' | 'BrandEdited'>;
export type ContractorEvent = EventOf<'ContractorAdded' | 'ContractorEdited'>;
export type ContractorStatusEvent = EventOf<'ContractorStatusCreated'>;
export type DocumentEvent = EventOf<'DocumentRecorded' | 'DocumentRevised' | 'DocumentPosted' | 'DocumentUnposted' | 'DocumentLinked'>;

/** A contractor status is a name that exists once a contractor named it. */
export interface ContractorStatusRecord {
  name: string;
}

/** Fails the type check when a `switch` misses an event type (given the event, or its type when it is the only one). */
export function unfolded(missed: never): never {
  throw new Error(`no fold for ${JSON.stringify(missed)}`);
}

export function evolveProduct(current: Current<ProductRecord>, event: ProductEvent): ProductRecord | undefined {
  switch (event.type) {
    case 'ProductAdded':
      return event.data;
    case 'ProductEdited':
    case 'ProductPricesUpdated': {
      const before = current();
      return before && { ...before, ...event.data.changes };
    }
    default:
      return unfolded(event);
  }
}

export function evolveCategory(current: Current<CategoryRecord>, event: CategoryEvent): CategoryRecord | undefined {
  switch (event.type) {
    case 'CategoryAdded':
      return event.data;
    case 'CategoryEdited': {
      const before = current();
      return before && { id: before.id, name: event.data.name ?? before.name, parent: event.data.parent ?? before.parent };
    }
    default:
      return unfolded(event);
  }
}

export function evolveBrand(current: Current<BrandRecord>, event: BrandEvent): BrandRecord | undefined {
  switch (event.type) {
    case 'BrandAdded':
      return event.data;
    case 'BrandEdited': {
      const before = current();
      // A logo of null removes it; an absent one leaves it.
      return before && { id: before.id, name: event.data.name ?? before.name, logo: event.data.logo === undefined ? before.logo : event.data.logo };
    }
    default:
      return unfolded(event);
  }
}

export function evolveContractor(current: Current<ContractorRecord>, event: ContractorEvent): ContractorRecord | undefined {
  switch (event.type) {
    case 'ContractorAdded':
      return event.data;
    case 'ContractorEdited': {
      const before = current();
      return before && { ...before, ...event.data.changes };
    }
    default:
      return unfolded(event);
  }
}

export function evolveContractorStatus(event: ContractorStatusEvent): ContractorStatusRecord {
  switch (event.type) {
    case 'ContractorStatusCreated':
      return { name: event.data.name };
    default:
      return unfolded(event.type);
  }
}

export function evolveDocument(current: Current<DocumentRecord>, event: DocumentEvent): DocumentRecord | undefined {
  if (event.type === 'DocumentRecorded') {
    const { fields, status, basedOn } = event.data;
    return { fields, status, basedOn };
  }
  const before = current();
  if (before === undefined) return undefined;
  switch (event.type) {
    case 'DocumentRevised':
      return { ...before, fields: { ...before.fields, ...event.data.changes } };
    case 'DocumentPosted':
      return { ...before, status: 1 };
    case 'DocumentUnposted':
      return { ...before, status: 0 };
    case 'DocumentLinked':
      return { ...before, basedOn: event.data.basedOn };
    default:
      return unfolded(event);
  }
}

/** Any record's state, by the kind its events name. */
export type RecordState = ProductRecord | CategoryRecord | BrandRecord | ContractorRecord | ContractorStatusRecord | DocumentRecord | ImportRun;

/** The fold of the event's own kind, for a reader of any stream (the audit): every event type is folded by one. */
export function evolveRecord(current: Current<RecordState>, event: DomainEvent): RecordState | undefined {
  switch (event.type) {
    case 'ProductAdded':
    case 'ProductEdited':
    case 'ProductPricesUpdated':
      return evolveProduct(current as Current<ProductRecord>, event);
    case 'CategoryAdded':
    case 'CategoryEdited':
      return evolveCategory(current as Current<CategoryRecord>, event);
    case 'BrandAdded':
    case 'BrandEdited':
      return evolveBrand(current as Current<BrandRecord>, event);
    case 'ContractorAdded':
    case 'ContractorEdited':
      return evolveContractor(current as Current<ContractorRecord>, event);
    case 'ContractorStatusCreated':
      return evolveContractorStatus(event);
    case 'DocumentRecorded':
    case 'DocumentRevised':
    case 'DocumentPosted':
    case 'DocumentUnposted':
    case 'DocumentLinked':
      return evolveDocument(current as Current<DocumentRecord>, event);
    case 'ImportRunRecorded':
      // An import run is recorded once, whole.
      return event.data;
    default:
      return unfolded(event);
  }
}
