import { EVENT_COLUMNS, type EventFilter, type EventRow } from '../events/rows.ts';
import type { SqlSession } from './sql.ts';

/**
 * The log's reads, in SQL both engines accept: after a seq (filtered), one stream, its length, one event's hash.
 * Each engine's append stays in its adapter; what the log holds is read the same way on both.
 */

const SELECT_EVENTS = `SELECT ${EVENT_COLUMNS.join(', ')} FROM events`;

/** The texts the reads run, for an engine that also reads them without a session (SQLite's synchronous readers). */
export const LOG_SQL = {
  /** The seq of the log's last event: its length, the seqs being dense from 1 (0 for an empty log). */
  lastSeq: 'SELECT coalesce(max(seq), 0) FROM events',
  stream: `${SELECT_EVENTS} WHERE stream = ? ORDER BY stream_version`,
  /** One stream's events from one version to another, both included, through the (stream, stream_version) index. */
  streamVersions: `${SELECT_EVENTS} WHERE stream = ? AND stream_version BETWEEN ? AND ? ORDER BY stream_version`,
  streamLength: 'SELECT max(stream_version) FROM events WHERE stream = ?',
  /** The first event recorded at or after a time, found through the time index (null when there is none). */
  firstSince: 'SELECT min(seq) FROM events WHERE recorded_at >= ?',
  hashAt: 'SELECT hash FROM events WHERE seq = ?',
};

/**
 * A page of the events that match `filter`, in seq order: its text, and its parameters after a seq and up to a
 * limit. A page starts after the last seq seen, so paging costs nothing; the stream, type and time indexes filter.
 */
export function eventPage(filter: Omit<EventFilter, 'after'>): { text: string; params(after: number, limit: number): unknown[] } {
  const conditions = ['seq > ?'];
  const values: string[] = [];
  const condition = (test: string, value: string | undefined) => {
    if (value === undefined) return;
    conditions.push(test);
    values.push(value);
  };
  condition('stream = ?', filter.stream);
  condition('type = ?', filter.type);
  condition('recorded_at >= ?', filter.since);
  return { text: `${SELECT_EVENTS} WHERE ${conditions.join(' AND ')} ORDER BY seq LIMIT ?`, params: (after, limit) => [after, ...values, limit] };
}

/**
 * Where a read after `after` of events recorded since a time starts, given the first such event's seq: at it
 * rather than scanning up to it. Undefined when no event is that recent (nothing to read).
 */
export function startAfter(after: number, firstSince: number | null | undefined): number | undefined {
  return firstSince == null ? undefined : Math.max(after, firstSince - 1);
}

export async function lastSeq(session: SqlSession): Promise<number> {
  return (await session.value<number>(LOG_SQL.lastSeq)) ?? 0;
}

/** Up to `limit` events after `after` that match `filter`, in seq order. */
export async function eventsAfter(session: SqlSession, after: number, limit: number, filter: Omit<EventFilter, 'after'> = {}): Promise<EventRow[]> {
  const start = filter.since === undefined ? after : startAfter(after, await session.value<number | null>(LOG_SQL.firstSince, [filter.since]));
  if (start === undefined) return [];
  const page = eventPage(filter);
  return session.objects<EventRow>(page.text, page.params(start, limit));
}

/** Reads the log in order after `afterSeq`, a chunk at a time, so memory stays flat however long the log. */
export async function* readEvents(session: SqlSession, afterSeq = 0, chunk = 5000): AsyncGenerator<EventRow> {
  for (let after = afterSeq; ; ) {
    const rows = await eventsAfter(session, after, chunk);
    yield* rows;
    if (rows.length < chunk) return;
    after = rows[rows.length - 1].seq;
  }
}

/** A stream's events in version order; empty when the stream does not exist. */
export function readStream(session: SqlSession, stream: string): Promise<EventRow[]> {
  return session.objects<EventRow>(LOG_SQL.stream, [stream]);
}

/** One stream's events from version `from` to `to`, both included, in order. */
export function readStreamVersions(session: SqlSession, stream: string, from: number, to: number): Promise<EventRow[]> {
  return session.objects<EventRow>(LOG_SQL.streamVersions, [stream, from, to]);
}

/** How many events a stream has (its last version; 0 when it has none). */
export async function streamLength(session: SqlSession, stream: string): Promise<number> {
  return (await session.value<number | null>(LOG_SQL.streamLength, [stream])) ?? 0;
}

/** The stored hash of the event with this seq; undefined when there is none. */
export function hashAt(session: SqlSession, seq: number): Promise<string | undefined> {
  return session.value<string>(LOG_SQL.hashAt, [seq]);
}
