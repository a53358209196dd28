import type { Clock } from '../../lib/clock.ts';
import { GENESIS_HASH } from '../../events/hash.ts';
import { type AppendListener, EVENT_COLUMNS, type EventFilter, type EventMeta, type EventMetas, type EventRow, type LogHead, type NewEvent, type StoredEvent, eventRows, streamsOf } from '../../events/rows.ts';
import { storedEventOf } from '../../events/store.ts';
import { LOG_SQL, eventPage, startAfter } from '../log-reads.ts';
import type { EventLog } from '../port.ts';
import { chunks, placeholders } from '../sql.ts';
import type { Sqlite } from './open.ts';
import { statementsByCount } from './statements.ts';

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
    for (const chunk of chunks(rows)) this.insert(chunk.length).run(chunk.flatMap((row) => EVENT_COLUMNS.map((column) => row[column])));
    for (const listener of this.listeners) await listener(stored);
    return stored;
  }

  /** The current version of every stream the events go to (0 for a new one). */
  private versionsOf(events: NewEvent[]): Map<string, number> {
    const versions = new Map<string, number>();
    for (const chunk of chunks(streamsOf(events))) {
      for (const [stream, version] of this.streamVersions(chunk.length).all(chunk) as [string, number | null][]) if (version !== null) versions.set(stream, version);
    }
    return versions;
  }
}

/*
 * The log's reads (`../log-reads.ts`) run synchronously on a connection, for the work that reads the whole log on
 * SQLite: a rebuild, a copy, `verify`. A generator that settles within its turn holds no connection across awaits.
 */

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
      yield storedEventOf({ seq, stream, stream_version, type, schema_version, data, meta: rowMeta, recorded_at }, meta);
    }
    if (rows.length < chunk) return;
    after = rows[rows.length - 1][0];
  }
}

/** Reads the log in order after `afterSeq`, a chunk at a time, so memory stays flat however long the log. */
export function readEvents(db: Sqlite, afterSeq = 0, chunk = 5000): Generator<EventRow> {
  return queryEvents(db, { after: afterSeq }, chunk);
}

/** Reads the events matching `filter` in seq order, a chunk at a time (see `eventPage`). */
export function* queryEvents(db: Sqlite, filter: EventFilter, chunk = 5000): Generator<EventRow> {
  const page = eventPage(filter);
  const statement = db.prepare(page.text);
  let after = filter.after ?? 0;
  if (filter.since !== undefined) {
    const start = startAfter(after, db.prepare(LOG_SQL.firstSince).pluck().get(filter.since) as number | null);
    if (start === undefined) return;
    after = start;
  }
  for (;;) {
    const rows = statement.all(page.params(after, chunk)) as EventRow[];
    yield* rows;
    if (rows.length < chunk) return;
    after = rows[rows.length - 1].seq;
  }
}

export function readStream(db: Sqlite, stream: string): EventRow[] {
  return db.prepare(LOG_SQL.stream).all(stream) as EventRow[];
}

export function lastSeq(db: Sqlite): number {
  return db.prepare(LOG_SQL.lastSeq).pluck().get() as number;
}
