import { type EventFilter, type EventRow, type StoredEvent, toStoredEvent } from '../events/store.ts';
import { eventsAfter, hashAt, lastSeq, readStream } from '../storage/log-reads.ts';
import type { SqlSession } from '../storage/sql.ts';
import { type HistoryEntry, historyOf, importRunsOf, whoOf } from './history.ts';
import { type LogPageQuery, logPageSql } from './log-page-query.ts';

/** What auditors read of a company: the log as stored, a page at a time, its length, and one record's history. */
export interface AuditReads {
  /** Up to `limit` events after `after` (and matching `filter`), in seq order. */
  eventsAfter(after: number, limit: number, filter?: Omit<EventFilter, 'after'>): Promise<EventRow[]>;
  /** A page of the log as the workbench reads it (see LogPageQuery). */
  eventsPage(query: LogPageQuery): Promise<EventRow[]>;
  history(stream: string): Promise<HistoryEntry[]>;
  /** One stream's events in order, in their current shape (for folding a record as of a moment). */
  streamEvents(stream: string): Promise<StoredEvent[]>;
  /** The seq of the log's last event: its length, the seqs being dense from 1 (0 for an empty log). */
  lastSeq(): Promise<number>;
  /** The stored hash of the event with this seq; undefined when there is none. */
  hashAt(seq: number): Promise<string | undefined>;
}

/** The auditors' reads on `session`: a connection that sees committed work only. */
export function auditReads(session: SqlSession): AuditReads {
  const streamEvents = async (stream: string) => (await readStream(session, stream)).map(toStoredEvent);
  return {
    eventsAfter: (after, limit, filter) => eventsAfter(session, after, limit, filter),
    async eventsPage(query) {
      const page = logPageSql(query);
      return page === undefined ? [] : session.objects<EventRow>(page.sql, page.params);
    },
    streamEvents,
    async history(stream) {
      // Keys are few: their names are read whole, then told by id.
      const names = new Map(await session.rows<[number, string]>('SELECT id, name FROM api_keys'));
      const events = await streamEvents(stream);
      const runs = await importRunsOf(streamEvents, events.map((event) => event.meta));
      return historyOf(events, whoOf({ keyName: (id) => names.get(id), importRun: (id) => runs.get(id) }));
    },
    lastSeq: () => lastSeq(session),
    hashAt: (seq) => hashAt(session, seq),
  };
}
