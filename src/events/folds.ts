import type { BrandRecord } from '../records/brand/events.ts';
import { evolveBrand } from '../records/brand/evolve.ts';
import type { CategoryRecord } from '../records/category/events.ts';
import { evolveCategory } from '../records/category/evolve.ts';
import type { ProductRecord } from '../records/product/events.ts';
import { evolveProduct } from '../records/product/evolve.ts';
import { type ContractorStatusRecord, evolveContractor, evolveContractorStatus } from '../records/contractor/evolve.ts';
import type { ContractorRecord } from '../records/contractor/events.ts';
import type { CompanyDetails } from './company.ts';
import type { DocumentRecord } from '../records/document/events.ts';
import { evolveDocument } from '../records/document/evolve.ts';
import type { ImportRun } from './imports.ts';
import type { DomainEvent } from './registry.ts';
import { type Current, type EventOf, unfolded } from './fold.ts';

/**
 * How each event changes the record of its stream, written once for every reader of records: the state the
 * deciders read (the batch's own decisions laid over the read tables), the projectors, the audit's record as of a
 * moment. Products', groups', brands', contractors' and documents' folds are in their modules (src/records/<kind>/evolve.ts), the other kinds'
 * here; every `switch` is exhaustive, so an event type added fails the type check until it is folded.
 *
 * A fold is given its record's state lazily: events that create a record never ask for it, so a batch adding a
 * product does not read whether its new id exists. An event that changes a record not known leaves it unknown.
 */

export type CompanyEvent = EventOf<'CompanyDetailsSet'>;


/** The company's details: each setting is whole, so the latest one is the record. */
export function evolveCompanyDetails(event: CompanyEvent): CompanyDetails {
  switch (event.type) {
    case 'CompanyDetailsSet':
      return event.data;
    default:
      return unfolded(event.type);
  }
}

/** Any record's state, by the kind its events name. */
export type RecordState = ProductRecord | CategoryRecord | BrandRecord | ContractorRecord | ContractorStatusRecord | DocumentRecord | ImportRun | CompanyDetails;

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
    case 'CompanyDetailsSet':
      return evolveCompanyDetails(event);
    case 'ImportRunRecorded':
      // An import run is recorded once, whole.
      return event.data;
    default:
      return unfolded(event);
  }
}
