import { type EventFilter, type EventRow, lastSeq, queryEvents } from '../events/store.ts';
import { projectors } from '../projections/registry.ts';
import { everyRow } from '../storage/sqlite/maintenance.ts';
import type { Sqlite } from '../storage/sqlite/open.ts';
import { type LogPageQuery, logPageSql } from './log-page-query.ts';
import { type HistoryEntry, streamEvents, streamHistory } from './history.ts';
import type { StoredEvent } from '../events/rows.ts';

/** What auditors read, bound to one connection: the log as stored, a page at a time, its length, and one record's history. */
export function auditReads(db: Sqlite) {
  // Prepared when first asked: the read tables are also dumped from scratch databases that hold no log.
  let hashAt: ReturnType<Sqlite['prepare']> | undefined;
  return {
    /** Up to `limit` events after `after` (and matching `filter`), in seq order. */
    eventsAfter(after: number, limit: number, filter: Omit<EventFilter, 'after'> = {}): EventRow[] {
      const rows: EventRow[] = [];
      for (const row of queryEvents(db, { ...filter, after }, limit)) {
        rows.push(row);
        if (rows.length === limit) break;
      }
      return rows;
    },
    /** A page of the log as the workbench reads it (see LogPageQuery). */
    eventsPage(query: LogPageQuery): EventRow[] {
      const page = logPageSql(query, () => '?', 'e.*');
      return page === undefined ? [] : (db.prepare(page.sql).all(...page.params) as EventRow[]);
    },
    history: (stream: string) => streamHistory(db, stream),
    /** One stream's events in order, in their current shape (for folding a record as of a moment). */
    streamEvents: (stream: string) => streamEvents(db, stream),
    /** Every row of every read table in a stable order: two databases with equal dumps serve equal bytes. */
    readTables(): Record<string, unknown[]> {
      return Object.fromEntries(projectors.flatMap((p) => p.tables).map((table) => [table, everyRow(db, table)]));
    },
    /** The seq of the log's last event: its length, the seqs being dense from 1 (0 for an empty log). */
    lastSeq: () => lastSeq(db),
    /** The stored hash of the event with this seq; undefined when there is none. */
    hashAt: (seq: number) => (hashAt ??= db.prepare('SELECT hash FROM events WHERE seq = ?').pluck()).get(seq) as string | undefined,
  };
}

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
