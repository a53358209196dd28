import type { EventMeta, EventRow, StoredEvent } from './rows.ts';
import { upcast } from './upcasters.ts';

export { ConcurrencyError, type AppendListener, type EventFilter, type EventMeta, type EventMetas, type EventRow, type ExpectedVersion, type NewEvent, type StoredEvent } from './rows.ts';

/** Turns a stored row back into an event as readers see it: data in the current shape, `schemaVersion` as written. */
export function toStoredEvent(row: EventRow): StoredEvent {
  return storedEventOf(row, JSON.parse(row.meta));
}

/** A stored row (its hash aside) as an event, with its meta already parsed: a replay parses a batch's meta once. */
export function storedEventOf(row: Omit<EventRow, 'hash'>, meta: EventMeta): StoredEvent {
  return {
    type: row.type,
    data: upcast(row.type, row.schema_version, JSON.parse(row.data)),
    seq: row.seq,
    stream: row.stream,
    streamVersion: row.stream_version,
    schemaVersion: row.schema_version,
    meta,
    recordedAt: row.recorded_at,
  } as StoredEvent;
}
