import { type EventFilter, type EventMetas, type EventRow, EVENT_COLUMNS, type NewEvent, type StoredEvent, eventRows, streamsOf } from '../../events/rows.ts';
import type { Clock } from '../../lib/clock.ts';
import type { EventLog } from '../port.ts';
import type { Sql } from './connection.ts';
import type { PostgresWriter } from './writer.ts';

export type PostgresAppendListener = (events: StoredEvent[]) => void | Promise<void>;

/** PostgreSQL binds at most 65,535 parameters to a statement. */
export const MAX_PARAMETERS = 65_535;

/** `($1, $2), ($3, $4)` for `rows` rows of `columns` values. */
export function placeholders(rows: number, columns: number): string {
  return Array.from({ length: rows }, (_, row) => `(${Array.from({ length: columns }, (_, column) => `$${row * columns + column + 1}`).join(', ')})`).join(', ');
}

export function chunks<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
}

const SELECT_EVENTS = `SELECT ${EVENT_COLUMNS.join(', ')} FROM events`;

/**
 * The append-only event log on PostgreSQL. `append` runs inside a unit of the writer, under the chain head's
 * lock its group holds: the head it chains onto is the log's last event, whichever server wrote it (the writer
 * read it with the lock). It hands the stored events to its listeners (the inline projectors) in the same
 * transaction, so events and read tables commit together.
 */
export class PostgresEventLog implements EventLog {
  private readonly listeners: PostgresAppendListener[] = [];

  constructor(
    private readonly writer: PostgresWriter,
    private readonly clock: Clock,
  ) {}

  onAppend(listener: PostgresAppendListener): void {
    this.listeners.push(listener);
  }

  async append(events: NewEvent[], meta: EventMetas): Promise<StoredEvent[]> {
    if (events.length === 0) return [];
    const session = this.writer.writesFor('PostgresEventLog.append');
    const { rows, stored } = eventRows(events, meta, this.writer.logHead(), await this.versionsOf(streamsOf(events)), new Date(this.clock()).toISOString());
    // One statement for the batch's rows, more only past the parameter limit.
    for (const chunk of chunks(rows, Math.floor(MAX_PARAMETERS / EVENT_COLUMNS.length))) {
      await session.run(
        `INSERT INTO events (${EVENT_COLUMNS.join(', ')}) VALUES ${placeholders(chunk.length, EVENT_COLUMNS.length)}`,
        chunk.flatMap((row) => EVENT_COLUMNS.map((column) => row[column])),
      );
    }
    const last = rows[rows.length - 1];
    await session.run('UPDATE chain_head SET seq = $1, hash = $2 WHERE id = 1', [last.seq, last.hash]);
    this.writer.headMoved({ seq: last.seq, hash: last.hash });
    for (const listener of this.listeners) await listener(stored);
    return stored;
  }

  /** The current version of every stream in `streams` that has events, in one query (one a parameter limit). */
  private async versionsOf(streams: string[]): Promise<Map<string, number>> {
    const versions = new Map<string, number>();
    for (const chunk of chunks(streams, MAX_PARAMETERS)) {
      // One index seek a stream for its highest version.
      const rows = await this.writer.session.sql<{ stream: string; version: number | null }>(
        `SELECT wanted.stream, (SELECT max(stream_version) FROM events WHERE events.stream = wanted.stream) AS version
         FROM (VALUES ${chunk.map((_, i) => `($${i + 1}::text)`).join(', ')}) AS wanted (stream)`,
        chunk,
      );
      for (const { stream, version } of rows) if (version !== null) versions.set(stream, version);
    }
    return versions;
  }
}

/** The seq of the log's last event (0 when it is empty). */
export async function lastSeq(db: Sql): Promise<number> {
  const [{ seq }] = await db.sql<{ seq: number }>('SELECT coalesce(max(seq), 0) AS seq FROM events');
  return seq;
}

/**
 * Up to `limit` events after `after` that match `filter`, in seq order: a page starts after the last seq seen, so
 * paging costs nothing, and the stream, type and time indexes do the filtering.
 */
export function eventsAfter(db: Sql, after: number, limit: number, filter: Omit<EventFilter, 'after'> = {}): Promise<EventRow[]> {
  const params: unknown[] = [after];
  const conditions = ['seq > $1'];
  const condition = (test: string, value: string | undefined) => {
    if (value === undefined) return;
    params.push(value);
    conditions.push(`${test} $${params.length}`);
  };
  condition('stream =', filter.stream);
  condition('type =', filter.type);
  condition('recorded_at >=', filter.since);
  params.push(limit);
  return db.sql<EventRow>(`${SELECT_EVENTS} WHERE ${conditions.join(' AND ')} ORDER BY seq LIMIT $${params.length}`, params);
}

/** Reads the log in order after `afterSeq`, a chunk at a time, so memory stays flat however long the log. */
export async function* readEvents(db: Sql, afterSeq = 0, chunk = 5000): AsyncGenerator<EventRow> {
  for (let after = afterSeq; ; ) {
    const rows = await eventsAfter(db, after, chunk);
    yield* rows;
    if (rows.length < chunk) return;
    after = rows[rows.length - 1].seq;
  }
}

/** A stream's events in version order. */
export function readStream(db: Sql, stream: string): Promise<EventRow[]> {
  return db.sql<EventRow>(`${SELECT_EVENTS} WHERE stream = $1 ORDER BY stream_version`, [stream]);
}
