import type { EventRow } from '../events/store.ts';

/**
 * An event as auditors read it (CLI NDJSON and GET /api/events): every stored column, data exactly as the log
 * holds it (not upcast), so the hash chain can be checked from this output alone.
 */
export function logEntry(row: EventRow) {
  return {
    seq: row.seq,
    stream: row.stream,
    streamVersion: row.stream_version,
    type: row.type,
    schemaVersion: row.schema_version,
    recordedAt: row.recorded_at,
    meta: JSON.parse(row.meta),
    data: JSON.parse(row.data),
    hash: row.hash,
  };
}
