import { type DocumentRecord, documentEvents } from '../records/document/events.ts';
import { type RecordState, evolveRecord } from '../records/registry.ts';
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

const DOCUMENT_EVENTS = new Set<string>(documentEvents.map((definition) => definition.type));

/** The fields of a record's state: without its address, and a document's status and links beside its fields. */
function fieldsOf(state: RecordState, event: StoredEvent): RecordFields {
  if (DOCUMENT_EVENTS.has(event.type)) {
    const { fields, status, basedOn } = state as DocumentRecord;
    return { ...fields, status, basedOn };
  }
  return Object.fromEntries(Object.entries(state).filter(([key]) => !ADDRESS_KEYS.has(key)));
}

/** The state the fold takes, from the fields (`fieldsOf` undone). */
function stateOf(fields: RecordFields, event: StoredEvent): RecordState {
  if (!DOCUMENT_EVENTS.has(event.type)) return fields as RecordState;
  const { status, basedOn, ...rest } = fields;
  return { fields: rest, status, basedOn } as DocumentRecord;
}

const same = (a: unknown, b: unknown) => a === b || (a !== undefined && b !== undefined && canonicalJson(a) === canonicalJson(b));

/** The record's fields after one event, by the record's fold, without telling what changed. */
export const evolveFields = (state: RecordFields | undefined, event: StoredEvent): RecordFields => fieldsOf(evolveRecord(() => stateOf(state ?? {}, event), event)!, event);

/**
 * Applies one event to a record's fields, by the record's fold (records/registry.ts): the fields after it, and each
 * field it changed with its value before. An event changing a record with no fields yet changes an empty one.
 */
export function foldEvent(state: RecordFields | undefined, event: StoredEvent): { state: RecordFields; changes: FieldChange[] } {
  const before = state ?? {};
  const after = evolveFields(before, event);
  const changed = new Set([...Object.keys(before), ...Object.keys(after)]);
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

/** A record before any event. */
export const UNFOLDED: FoldedRecord = { fields: undefined, lastEvent: undefined, events: 0 };

/**
 * Folds a stream's events (in stream order) recorded at or before `atMs` (all of them when omitted), on from a
 * fold of the events before them (`from`), so a long stream is folded a part at a time.
 */
export function foldRecord(events: readonly StoredEvent[], atMs = Infinity, from = UNFOLDED): FoldedRecord {
  let { fields, lastEvent, events: count } = from;
  for (const event of events) {
    if (Date.parse(event.recordedAt) > atMs) break;
    fields = evolveFields(fields, event);
    lastEvent = event;
    count++;
  }
  return { fields, lastEvent, events: count };
}
