import type { EventRow, LogHead } from '../events/rows.ts';
import type { StoredKey } from './port.ts';

/**
 * A company's log and keys as stored in one database, to be copied into another (SQLite or PostgreSQL, either
 * way): rows as they are, never re-hashed. Access tokens (they live a minute) and workbench sessions (signed in
 * to one database's servers) are not part of it.
 */
export interface CopySource {
  /** The log in seq order from the first event, read as it is consumed (memory stays flat). */
  events: Iterable<EventRow> | AsyncIterable<EventRow>;
  /** How many events `events` yields (the log's last seq: seq is dense). */
  count: number;
  keys: StoredKey[];
  /** The seq a point-in-time copy ends at; undefined for a company's own database. */
  pointInTime: number | undefined;
  /** The seq of the first event recorded at or after `iso`, in the same snapshot (a point in time named by its time). */
  firstRecordedSince(iso: string): Promise<number | undefined>;
}

/** An empty database a company is copied into. */
export interface CopyTarget {
  /**
   * Brings the schema up to date, then writes the events and the keys (and the chain head, where the engine keeps
   * one) in one durable transaction: a failure leaves no event and no key. Refused with `TargetNotEmptyError` when
   * the database holds any.
   */
  load(events: AsyncIterable<EventRow>, keys: StoredKey[]): Promise<void>;
  /** The log as now stored there, in seq order, for the check that follows the copy. */
  events(): Iterable<EventRow> | AsyncIterable<EventRow>;
  /** Its chain head: the last seq and hash, as its writers will continue from. */
  head(): Promise<LogHead>;
}

/** The columns of `api_keys`, the same on both engines, in the order `apiKeyValues` gives a key's values. */
export const API_KEY_COLUMNS = ['id', 'name', 'scope', 'key_hash', 'created_at', 'expires_at', 'revoked_at'] as const;

/** A key's values as a copy inserts them: its id too, so the keys keep their numbers. */
export const apiKeyValues = (key: StoredKey) => [key.id, key.name, key.scope, key.keyHash, key.created, key.expires, key.revoked];

/** A copy goes into an empty database only: this one holds events or keys. */
export class TargetNotEmptyError extends Error {
  constructor(
    readonly lastSeq: number,
    readonly keys: number,
  ) {
    super(`it is not empty (${lastSeq} events, ${keys} keys); a copy goes only into an empty database`);
  }
}

/** A point-in-time copy is a read-only view of history: copied, it would lose that mark and take new events. */
export class SourceIsPointInTimeError extends Error {
  constructor(readonly until: number) {
    super(`it is a point-in-time copy (the log up to seq ${until}), a read-only view of history; copy the company's own database`);
  }
}
