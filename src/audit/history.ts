import type { Sqlite } from '../storage/sqlite/open.ts';
import { formatMoscow } from '../lib/clock.ts';
import { type EventMeta, readStream, toStoredEvent } from '../events/store.ts';

/** One event of a record's history, told for people: when (Moscow time), who, and what changed. */
export interface HistoryEntry {
  seq: number;
  streamVersion: number;
  type: string;
  time: string;
  recordedAt: string;
  who: string;
  /** The fields the event set, in the event's current shape (an edit's `changes`, else its data without the id). */
  changes: Record<string, unknown>;
}

/** Every event of one stream (`product-42`) in order; empty when the stream does not exist. */
export function streamHistory(db: Sqlite, stream: string): HistoryEntry[] {
  const keyName = db.prepare('SELECT name FROM api_keys WHERE id = ?').pluck();
  const who = (meta: EventMeta): string => {
    if (meta.keyId !== undefined) {
      const name = keyName.get(meta.keyId) as string | undefined;
      return name === undefined ? `key ${meta.keyId}` : `key ${meta.keyId} "${name}"`;
    }
    if (meta.importLine !== undefined) return `import line ${meta.importLine}`;
    return meta.source ?? 'unknown';
  };
  return readStream(db, stream).map((row) => {
    const event = toStoredEvent(row);
    return {
      seq: event.seq,
      streamVersion: event.streamVersion,
      type: event.type,
      time: formatMoscow(Date.parse(event.recordedAt)),
      recordedAt: event.recordedAt,
      who: who(event.meta),
      changes: changesOf(event.data as Record<string, unknown>),
    };
  });
}

function changesOf(data: Record<string, unknown>): Record<string, unknown> {
  if (data.changes !== null && typeof data.changes === 'object') return data.changes as Record<string, unknown>;
  const { id: _id, ...fields } = data;
  return fields;
}
