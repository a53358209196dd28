import { type EventRow, lastSeq, queryEvents } from '../events/store.ts';
import type { Sqlite } from '../storage/sqlite/open.ts';
import { streamHistory } from './history.ts';

/** What auditors read, bound to one connection: the log as stored, a page at a time, its length, and one record's history. */
export function auditReads(db: Sqlite) {
  return {
    /** Up to `limit` events after `after`, in seq order. */
    eventsAfter(after: number, limit: number): EventRow[] {
      const rows: EventRow[] = [];
      for (const row of queryEvents(db, { after }, limit)) {
        rows.push(row);
        if (rows.length === limit) break;
      }
      return rows;
    },
    history: (stream: string) => streamHistory(db, stream),
    /** The seq of the log's last event: its length, the seqs being dense from 1 (0 for an empty log). */
    lastSeq: () => lastSeq(db),
  };
}
