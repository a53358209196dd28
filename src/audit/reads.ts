import { type EventFilter, type EventRow, type StoredEvent, toStoredEvent } from '../events/store.ts';
import { eventsAfter, hashAt, lastSeq, readStreamVersions, streamLength } from '../storage/log-reads.ts';
import type { SqlSession } from '../storage/sql.ts';
import { type HistoryEntry, historyChunks, historyOfVersions, importRunsOf, versionsFrom, whoOf } from './history.ts';
import { type LogPageQuery, logPageSql } from './log-page-query.ts';

/** What auditors read of a company: the log as stored, a page at a time, its length, and one record's history. */
export interface AuditReads {
  /** Up to `limit` events after `after` (and matching `filter`), in seq order. */
  eventsAfter(after: number, limit: number, filter?: Omit<EventFilter, 'after'>): Promise<EventRow[]>;
  /** A page of the log as the workbench reads it (see LogPageQuery). */
  eventsPage(query: LogPageQuery): Promise<EventRow[]>;
  /** The entries of a record's history for its versions `from` to `to`, both included, oldest first; who in English. */
  history(stream: string, from: number, to: number): Promise<HistoryEntry[]>;
  /** A record's whole history, oldest first, a chunk of entries at a time; who in English. */
  wholeHistory(stream: string): AsyncGenerator<HistoryEntry[]>;
  /** One stream's events from version `from` to `to`, both included, in order, in their current shape. */
  streamVersions(stream: string, from: number, to: number): Promise<StoredEvent[]>;
  /** How many events a stream has (its last version; 0 with none). */
  streamLength(stream: string): Promise<number>;
  /** The seq of the log's last event: its length, the seqs being dense from 1 (0 for an empty log). */
  lastSeq(): Promise<number>;
  /** The stored hash of the event with this seq; undefined when there is none. */
  hashAt(seq: number): Promise<string | undefined>;
}

/** The auditors' reads on `session`: a connection that sees committed work only. */
export function auditReads(session: SqlSession): AuditReads {
  const streamVersions = async (stream: string, from: number, to: number) => (await readStreamVersions(session, stream, from, to)).map(toStoredEvent);
  // An import run's stream holds its one record.
  const importRunRecord = (stream: string) => streamVersions(stream, 1, 1);
  // Keys are few: their names are read whole, then told by id; the import runs a chunk of events names, per chunk.
  const whoInEnglish = async () => {
    const names = new Map(await session.rows<[number, string]>('SELECT id, name FROM api_keys'));
    return async (events: StoredEvent[]) => {
      const runs = await importRunsOf(importRunRecord, events.map((event) => event.meta));
      return whoOf({ keyName: (id) => names.get(id), importRun: (id) => runs.get(id) });
    };
  };
  return {
    eventsAfter: (after, limit, filter) => eventsAfter(session, after, limit, filter),
    async eventsPage(query) {
      const page = logPageSql(query);
      return page === undefined ? [] : session.objects<EventRow>(page.sql, page.params);
    },
    streamVersions,
    streamLength: (stream) => streamLength(session, stream),
    history: async (stream, from, to) => historyOfVersions((first, last) => streamVersions(stream, first, last), versionsFrom(from, to), await whoInEnglish()),
    async *wholeHistory(stream) {
      yield* historyChunks((first, last) => streamVersions(stream, first, last), await whoInEnglish());
    },
    lastSeq: () => lastSeq(session),
    hashAt: (seq) => hashAt(session, seq),
  };
}
