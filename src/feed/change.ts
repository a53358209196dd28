import type { DocumentFields, DocumentType } from '../events/documents.ts';
import type { ProductFields } from '../events/catalogue.ts';
import { eventDefinitions } from '../events/registry.ts';
import type { EventRow, StoredEvent } from '../events/store.ts';
import { toStoredEvent } from '../events/store.ts';
import { fromKopecks } from '../lib/money.ts';
import type { KeyScope } from '../storage/port.ts';

/**
 * A change as followers read it (`GET /api/changes`, its stream, the webhooks): one event of the log with the
 * record it concerns, its data in the API's units (money in rubles, as the lists show it) and its current shape.
 */

/** The records a change may concern, as the API names them; a contractor status is named by its text. */
export const RECORD_KINDS = ['product', 'category', 'brand', 'contractor', 'contractorStatus', 'document'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

export type ChangeRecord = { kind: Exclude<RecordKind, 'document' | 'contractorStatus'>; id: number } | { kind: 'contractorStatus'; id: string } | { kind: 'document'; type: DocumentType; id: number };

export const EVENT_TYPES: readonly string[] = eventDefinitions.map((d) => d.type);

/** The event types of each record kind. */
export const TYPES_OF_KIND: Record<RecordKind, readonly string[]> = {
  product: ['ProductAdded', 'ProductEdited', 'ProductPricesUpdated'],
  category: ['CategoryAdded', 'CategoryEdited'],
  brand: ['BrandAdded', 'BrandEdited'],
  contractor: ['ContractorAdded', 'ContractorEdited'],
  contractorStatus: ['ContractorStatusCreated'],
  document: ['DocumentRecorded', 'DocumentRevised', 'DocumentPosted', 'DocumentUnposted', 'DocumentLinked'],
};

export interface Change {
  seq: number;
  type: string;
  record: ChangeRecord;
  recordedAt: string;
  data: Record<string, unknown>;
  /** Who made it (key id, token hash, import line): for audit keys only. */
  meta?: Record<string, unknown>;
}

function recordOf(event: StoredEvent): ChangeRecord {
  switch (event.type) {
    case 'ProductAdded':
    case 'ProductEdited':
    case 'ProductPricesUpdated':
      return { kind: 'product', id: event.data.id };
    case 'CategoryAdded':
    case 'CategoryEdited':
      return { kind: 'category', id: event.data.id };
    case 'BrandAdded':
    case 'BrandEdited':
      return { kind: 'brand', id: event.data.id };
    case 'ContractorAdded':
    case 'ContractorEdited':
      return { kind: 'contractor', id: event.data.id };
    case 'ContractorStatusCreated':
      return { kind: 'contractorStatus', id: event.data.name };
    default:
      return { kind: 'document', type: event.data.docType, id: event.data.id };
  }
}

const rubles = (kopecks: number | null | undefined) => (kopecks === undefined ? undefined : fromKopecks(kopecks));

/** Product fields (whole or some) with their prices in rubles; the fields not given stay absent. */
function productInRubles(fields: Partial<ProductFields>): Record<string, unknown> {
  return withDefined({
    ...fields,
    minPrice: rubles(fields.minPrice),
    purchasePrice: rubles(fields.purchasePrice),
    salePrice: rubles(fields.salePrice),
    additionalPrices: fields.additionalPrices?.map((a) => ({ name: a.name, price: fromKopecks(a.price) })),
  });
}

/** Document fields (whole or some) with their sums and line prices in rubles. */
function documentInRubles(fields: Partial<DocumentFields>): Record<string, unknown> {
  return withDefined({
    ...fields,
    sum: rubles(fields.sum),
    vatSum: rubles(fields.vatSum),
    products: fields.products?.map((line) => ({ ...line, pr_price: fromKopecks(line.pr_price) })),
  });
}

/** Leaves out what is undefined: an edit names only the fields it changed. */
const withDefined = (fields: Record<string, unknown>) => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));

/** The event's data with its money in rubles; kopecks are the log's unit, not the API's. */
function dataInApiUnits(event: StoredEvent): Record<string, unknown> {
  switch (event.type) {
    case 'ProductAdded':
      return productInRubles(event.data);
    case 'ProductEdited':
    case 'ProductPricesUpdated':
      return { ...event.data, changes: productInRubles(event.data.changes) };
    case 'DocumentRecorded':
      return { ...event.data, fields: documentInRubles(event.data.fields) };
    case 'DocumentRevised':
      return { ...event.data, changes: documentInRubles(event.data.changes) };
    default:
      return event.data;
  }
}

/**
 * A log row as a change for a key of `scope`. The meta names the key and the access token that made the change:
 * an auditor's to read, never another integrator's.
 */
export function changeOf(row: EventRow, scope: KeyScope): Change {
  const event = toStoredEvent(row);
  return {
    seq: event.seq,
    type: event.type,
    record: recordOf(event),
    recordedAt: event.recordedAt,
    data: dataInApiUnits(event),
    ...(scope === 'audit' && { meta: event.meta as Record<string, unknown> }),
  };
}
