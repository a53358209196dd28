import { type AppendListener, type EventFilter, type EventMetas, type EventRow, EVENT_COLUMNS, type NewEvent, type StoredEvent, eventRows, streamsOf } from '../../events/rows.ts';
import type { Clock } from '../../lib/clock.ts';
import * as logReads from '../log-reads.ts';
import type { EventLog } from '../port.ts';
import { chunks, placeholders } from '../sql.ts';
import type { Sql } from './connection.ts';
import { postgresSession } from './session.ts';
import type { PostgresWriter } from './writer.ts';

/** PostgreSQL binds at most 65,535 parameters to a statement. */
export const MAX_PARAMETERS = 65_535;

/**
 * The append-only event log on PostgreSQL. `append` runs inside a unit of the writer, under the chain head's
 * lock its group holds: the head it chains onto is the log's last event, whichever server wrote it (the writer
 * read it with the lock). It hands the stored events to its listeners (the inline projectors) in the same
 * transaction, so events and read tables commit together.
 */
export class PostgresEventLog implements EventLog {
  private readonly listeners: AppendListener[] = [];

  constructor(
    private readonly writer: PostgresWriter,
    private readonly clock: Clock,
  ) {}

  onAppend(listener: AppendListener): void {
    this.listeners.push(listener);
  }

  async append(events: NewEvent[], meta: EventMetas): Promise<StoredEvent[]> {
    if (events.length === 0) return [];
    const session = this.writer.writesFor('PostgresEventLog.append');
    const { rows, stored } = eventRows(events, meta, this.writer.logHead(), await this.versionsOf(streamsOf(events)), new Date(this.clock()).toISOString());
    // One statement for the batch's rows, more only past the parameter limit.
    for (const chunk of chunks(rows, Math.floor(MAX_PARAMETERS / EVENT_COLUMNS.length))) {
      await session.run(
        `INSERT INTO events (${EVENT_COLUMNS.join(', ')}) VALUES ${placeholders(chunk.length, EVENT_COLUMNS.length, true)}`,
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

/** The log's reads (`../log-reads.ts`) on one of PostgreSQL's connections: a snapshot's session, or the pool. */
const on = (db: Sql) => postgresSession(() => db);

export const lastSeq = (db: Sql): Promise<number> => logReads.lastSeq(on(db));

export const eventsAfter = (db: Sql, after: number, limit: number, filter?: Omit<EventFilter, 'after'>): Promise<EventRow[]> =>
  logReads.eventsAfter(on(db), after, limit, filter);

export const readEvents = (db: Sql, afterSeq?: number, chunk?: number): AsyncGenerator<EventRow> => logReads.readEvents(on(db), afterSeq, chunk);

export const readStream = (db: Sql, stream: string): Promise<EventRow[]> => logReads.readStream(on(db), stream);
