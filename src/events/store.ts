import type { Sqlite } from '../db/open.ts';
import { canonicalJson } from '../lib/canonical-json.ts';
import type { Clock } from '../lib/clock.ts';
import { GENESIS_HASH, chainHash, type HashedColumns } from './hash.ts';
import { type DomainEvent, definitionByType } from './registry.ts';

/** Who and what caused an event; keys appear only by id, never the key itself. */
export interface EventMeta {
  keyId?: number;
  token?: string;
  source?: string;
  importLine?: number;
}

/** `no_stream`: the stream must not exist yet; a number: the stream's current version must be exactly that. */
export type ExpectedVersion = 'no_stream' | 'stream_exists' | number;

export type NewEvent = DomainEvent & { stream: string; expectedVersion?: ExpectedVersion };

export type StoredEvent = DomainEvent & {
  seq: number;
  stream: string;
  streamVersion: number;
  schemaVersion: number;
  meta: EventMeta;
  recordedAt: string;
};

export type EventRow = HashedColumns & { hash: string };

export class ConcurrencyError extends Error {}

export type AppendListener = (events: StoredEvent[]) => void;

/**
 * The append-only event log. `append` must run inside a write transaction; it hands the stored events to
 * its listeners (the inline projectors) within that same transaction, so events and read tables commit together.
 */
export class EventStore {
  private readonly insert;
  private readonly head;
  private readonly streamVersion;
  private readonly listeners: AppendListener[] = [];

  constructor(
    private readonly db: Sqlite,
    private readonly clock: Clock,
  ) {
    this.insert = db.prepare(
      `INSERT INTO events (seq, stream, stream_version, type, schema_version, data, meta, recorded_at, hash)
       VALUES (@seq, @stream, @stream_version, @type, @schema_version, @data, @meta, @recorded_at, @hash)`,
    );
    this.head = db.prepare('SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1');
    this.streamVersion = db.prepare('SELECT max(stream_version) FROM events WHERE stream = ?').pluck();
  }

  onAppend(listener: AppendListener): void {
    this.listeners.push(listener);
  }

  append(events: NewEvent[], meta: EventMeta): StoredEvent[] {
    if (events.length === 0) return [];
    if (!this.db.inTransaction) throw new Error('EventStore.append must run inside a transaction');
    const head = this.head.get() as { seq: number; hash: string } | undefined;
    let seq = head?.seq ?? 0;
    let previous = head?.hash ?? GENESIS_HASH;
    const recordedAt = new Date(this.clock()).toISOString();
    const metaJson = canonicalJson(meta);
    const versions = new Map<string, number>();
    const stored: StoredEvent[] = [];
    for (const event of events) {
      const definition = definitionByType.get(event.type);
      if (!definition) throw new Error(`unknown event type ${event.type}`);
      // A malformed event is a bug in a command: refuse it before it reaches the log.
      const data = definition.schema.parse(event.data);
      const current = versions.get(event.stream) ?? ((this.streamVersion.get(event.stream) as number | null) ?? 0);
      checkExpected(event, current);
      const row: HashedColumns = {
        seq: ++seq,
        stream: event.stream,
        stream_version: current + 1,
        type: event.type,
        schema_version: definition.schemaVersion,
        data: canonicalJson(data),
        meta: metaJson,
        recorded_at: recordedAt,
      };
      previous = chainHash(previous, row);
      this.insert.run({ ...row, hash: previous });
      versions.set(event.stream, current + 1);
      stored.push({
        type: event.type,
        // Listeners get the data as stored (canonical key order), exactly what a rebuild will read back:
        // projections built live and by a rebuild are then the same byte for byte.
        data: JSON.parse(row.data),
        seq: row.seq,
        stream: row.stream,
        streamVersion: row.stream_version,
        schemaVersion: row.schema_version,
        meta,
        recordedAt,
      } as StoredEvent);
    }
    for (const listener of this.listeners) listener(stored);
    return stored;
  }
}

function checkExpected(event: NewEvent, current: number): void {
  const expected = event.expectedVersion;
  if (expected === undefined) return;
  const okay = expected === 'no_stream' ? current === 0 : expected === 'stream_exists' ? current > 0 : current === expected;
  if (!okay) throw new ConcurrencyError(`stream ${event.stream} is at version ${current}, expected ${expected}`);
}

/** Turns a stored row back into an event as readers see it. */
export function toStoredEvent(row: EventRow): StoredEvent {
  return {
    type: row.type,
    data: JSON.parse(row.data),
    seq: row.seq,
    stream: row.stream,
    streamVersion: row.stream_version,
    schemaVersion: row.schema_version,
    meta: JSON.parse(row.meta),
    recordedAt: row.recorded_at,
  } as StoredEvent;
}

/** Reads the log in order after `afterSeq`, a chunk at a time, so memory stays flat however long the log. */
export function* readEvents(db: Sqlite, afterSeq = 0, chunk = 5000): Generator<EventRow> {
  const page = db.prepare('SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?');
  let after = afterSeq;
  for (;;) {
    const rows = page.all(after, chunk) as EventRow[];
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
