import type { Sqlite } from '../storage/sqlite/open.ts';
import type { Clock } from '../lib/clock.ts';
import { GENESIS_HASH } from './hash.ts';
import { EVENT_COLUMNS, type EventFilter, type EventMeta, type EventMetas, type EventRow, type LogHead, type NewEvent, type StoredEvent, eventRows, streamsOf } from './rows.ts';
import { upcast } from './upcasters.ts';
import { inChunks, statementsByCount } from '../storage/sqlite/statements.ts';
import { placeholders } from '../storage/sql.ts';
import type { EventLog } from '../storage/port.ts';

export { ConcurrencyError, type EventFilter, type EventMeta, type EventMetas, type EventRow, type ExpectedVersion, type NewEvent, type StoredEvent } from './rows.ts';

export type AppendListener = (events: StoredEvent[]) => Promise<void> | void;

/**
 * The append-only event log on SQLite. `append` must run inside a write transaction; it hands the stored events
 * to its listeners (the inline projectors) within that same transaction, so events and read tables commit together.
 */
export class EventStore implements EventLog {
  private readonly insert;
  private readonly head;
  private readonly streamVersions;
  private readonly listeners: AppendListener[] = [];

  constructor(
    private readonly db: Sqlite,
    private readonly clock: Clock,
  ) {
    // A batch's rows go in with one statement, its streams' versions come back with one.
    this.insert = statementsByCount(db, (n) => `INSERT INTO events (${EVENT_COLUMNS.join(', ')}) VALUES ${placeholders(n, EVENT_COLUMNS.length)}`);
    this.head = db.prepare('SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1');
    // One seek a stream for its highest version: a GROUP BY over the same streams would read every event of each.
    this.streamVersions = statementsByCount(
      db,
      (n) =>
        `WITH wanted (stream) AS (VALUES ${placeholders(n, 1)})
         SELECT stream, (SELECT max(stream_version) FROM events WHERE events.stream = wanted.stream) FROM wanted`,
      (statement) => statement.raw(),
    );
  }

  onAppend(listener: AppendListener): void {
    this.listeners.push(listener);
  }

  async append(events: NewEvent[], meta: EventMetas): Promise<StoredEvent[]> {
    if (events.length === 0) return [];
    if (!this.db.inTransaction) throw new Error('EventStore.append must run inside a transaction');
    const head = (this.head.get() as LogHead | undefined) ?? { seq: 0, hash: GENESIS_HASH };
    const { rows, stored } = eventRows(events, meta, head, this.versionsOf(events), new Date(this.clock()).toISOString());
    const values = rows.map((row) => EVENT_COLUMNS.map((column) => row[column]));
    inChunks(values, (rows) => this.insert(rows.length).run(rows.flat()));
    for (const listener of this.listeners) await listener(stored);
    return stored;
  }

  /** The current version of every stream the events go to (0 for a new one). */
  private versionsOf(events: NewEvent[]): Map<string, number> {
    const streams = streamsOf(events);
    const versions = new Map<string, number>();
    inChunks(streams, (chunk) => {
      for (const [stream, version] of this.streamVersions(chunk.length).all(chunk) as [string, number | null][]) if (version !== null) versions.set(stream, version);
    });
    return versions;
  }
}

/** Turns a stored row back into an event as readers see it: data in the current shape, `schemaVersion` as written. */
export function toStoredEvent(row: EventRow): StoredEvent {
  return withMeta(row, JSON.parse(row.meta));
}

function withMeta(row: Omit<EventRow, 'hash'>, meta: EventMeta): StoredEvent {
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

/**
 * The log after `afterSeq` as projectors replay it, a chunk at a time: without the hash, and events sharing a
 * meta string (a batch's) share one parsed object, since replay reads every row but hardly ever a meta.
 */
export function* replayEvents(db: Sqlite, afterSeq = 0, chunk = 1000): Generator<StoredEvent> {
  // Rows as arrays: cheaper to read than objects, and every event is built anew anyway.
  const page = db.prepare('SELECT seq, stream, stream_version, type, schema_version, data, meta, recorded_at FROM events WHERE seq > ? ORDER BY seq LIMIT ?').raw();
  let metaJson = '';
  let meta: EventMeta = {};
  for (let after = afterSeq; ; ) {
    const rows = page.all(after, chunk) as [number, string, number, string, number, string, string, string][];
    for (const [seq, stream, stream_version, type, schema_version, data, rowMeta, recorded_at] of rows) {
      if (rowMeta !== metaJson) {
        metaJson = rowMeta;
        meta = JSON.parse(metaJson);
      }
      yield withMeta({ seq, stream, stream_version, type, schema_version, data, meta: rowMeta, recorded_at }, meta);
    }
    if (rows.length < chunk) return;
    after = rows[rows.length - 1][0];
  }
}

/** Reads the log in order after `afterSeq`, a chunk at a time, so memory stays flat however long the log. */
export function readEvents(db: Sqlite, afterSeq = 0, chunk = 5000): Generator<EventRow> {
  return queryEvents(db, { after: afterSeq }, chunk);
}

/**
 * Reads the events matching `filter` in seq order, a chunk at a time (each chunk starts after the last seq seen,
 * so paging costs nothing). The filters are SQL conditions, so the stream, type and time indexes do the work.
 */
export function* queryEvents(db: Sqlite, filter: EventFilter, chunk = 5000): Generator<EventRow> {
  const conditions = ['seq > @after'];
  if (filter.stream !== undefined) conditions.push('stream = @stream');
  if (filter.type !== undefined) conditions.push('type = @type');
  if (filter.since !== undefined) conditions.push('recorded_at >= @since');
  const page = db.prepare(`SELECT * FROM events WHERE ${conditions.join(' AND ')} ORDER BY seq LIMIT @chunk`);
  const { stream, type, since } = filter;
  let after = filter.after ?? 0;
  if (since !== undefined) {
    // Start at the first event recorded since then (found through the time index) instead of scanning up to it.
    const first = db.prepare('SELECT min(seq) FROM events WHERE recorded_at >= ?').pluck().get(since) as number | null;
    if (first === null) return;
    after = Math.max(after, first - 1);
  }
  for (;;) {
    const rows = page.all({ after, chunk, ...(stream !== undefined && { stream }), ...(type !== undefined && { type }), ...(since !== undefined && { since }) }) as EventRow[];
    for (const row of rows) yield row;
    if (rows.length < chunk) return;
    after = rows[rows.length - 1].seq;
  }
}

export function readStream(db: Sqlite, stream: string): EventRow[] {
  return db.prepare('SELECT * FROM events WHERE stream = ? ORDER BY stream_version').all(stream) as EventRow[];
}

export function lastSeq(db: Sqlite): number {
  return (db.prepare('SELECT coalesce(max(seq), 0) FROM events').pluck().get() as number) ?? 0;
}
