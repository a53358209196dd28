import type { StoredEvent } from '../events/store.ts';
import { canonicalJson } from '../lib/canonical-json.ts';

/**
 * A record as its own events leave it: the fields of its stream folded in order, without anything derived from
 * other streams (a document's `paid` and tree, a contractor's balance). This is what "the record as it was at a
 * moment" means for an auditor: the log up to that moment, and nothing else.
 */
export type RecordFields = Record<string, unknown>;

/** One field an event changed, as it was before the event and as the event left it (undefined: absent). */
export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** The keys that address a record, not fields of it. */
const ADDRESS_KEYS = new Set(['id', 'docType']);

function withoutAddress(data: Record<string, unknown>): RecordFields {
  return Object.fromEntries(Object.entries(data).filter(([key]) => !ADDRESS_KEYS.has(key)));
}

/** The fields an event sets: a whole record when it is created, otherwise just what it changes. */
function fieldsSet(event: StoredEvent): { replaces: boolean; fields: RecordFields } {
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'DocumentRecorded': {
      const { fields, status, basedOn } = event.data;
      return { replaces: true, fields: { ...fields, status, basedOn } };
    }
    case 'DocumentPosted':
      return { replaces: false, fields: { status: 1 } };
    case 'DocumentUnposted':
      return { replaces: false, fields: { status: 0 } };
    case 'DocumentLinked':
      return { replaces: false, fields: { basedOn: event.data.basedOn } };
    case 'ProductAdded':
    case 'ContractorAdded':
    case 'CategoryAdded':
    case 'BrandAdded':
    case 'ContractorStatusCreated':
      return { replaces: true, fields: withoutAddress(data) };
    default:
      // Edits carry `changes` (products, contractors, documents) or the changed fields beside the id (categories, brands).
      return { replaces: false, fields: data.changes !== null && typeof data.changes === 'object' ? (data.changes as RecordFields) : withoutAddress(data) };
  }
}

const same = (a: unknown, b: unknown) => a === b || (a !== undefined && b !== undefined && canonicalJson(a) === canonicalJson(b));

/** Applies one event to a record's fields: the fields after it, and each field it changed with its value before. */
export function foldEvent(state: RecordFields | undefined, event: StoredEvent): { state: RecordFields; changes: FieldChange[] } {
  const { replaces, fields } = fieldsSet(event);
  const before = state ?? {};
  const after = replaces ? fields : { ...before, ...fields };
  const changed = replaces ? new Set([...Object.keys(before), ...Object.keys(after)]) : new Set(Object.keys(fields));
  const changes = [...changed].filter((field) => !same(before[field], after[field])).map((field) => ({ field, before: before[field], after: after[field] }));
  return { state: after, changes };
}

/** A stream folded up to a moment. */
export interface FoldedRecord {
  /** The fields; undefined when the stream had no event yet at that moment. */
  fields: RecordFields | undefined;
  /** The last event folded in (undefined with none). */
  lastEvent: StoredEvent | undefined;
  events: number;
}

/** Folds a stream's events (in stream order) recorded at or before `atMs` (all of them when omitted). */
export function foldRecord(events: readonly StoredEvent[], atMs = Infinity): FoldedRecord {
  let fields: RecordFields | undefined;
  let lastEvent: StoredEvent | undefined;
  let count = 0;
  for (const event of events) {
    if (Date.parse(event.recordedAt) > atMs) break;
    fields = foldEvent(fields, event).state;
    lastEvent = event;
    count++;
  }
  return { fields, lastEvent, events: count };
}
