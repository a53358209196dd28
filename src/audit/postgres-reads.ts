import type { AuditReads } from './reads.ts';
import { historyOf, whoOf } from './history.ts';
import { toStoredEvent } from '../events/store.ts';
import type { Sql } from '../storage/postgres/connection.ts';
import { eventsAfter, lastSeq, readStream } from '../storage/postgres/event-log.ts';
import { EVENT_COLUMNS, type EventRow } from '../events/rows.ts';
import { logPageSql } from './log-page-query.ts';
import { holdsNul } from '../storage/postgres/session.ts';

/** What auditors read, on the pool: committed work only. */
export function postgresAuditReads(pool: Sql): AuditReads {
  const streamEvents = async (stream: string) => (holdsNul([stream]) ? [] : (await readStream(pool, stream)).map(toStoredEvent));
  return {
    eventsAfter: async (after, limit, filter = {}) => (holdsNul(Object.values(filter)) ? [] : eventsAfter(pool, after, limit, filter)),
    streamEvents,
    async eventsPage(query) {
      const page = logPageSql(query, (index) => `$${index}`, EVENT_COLUMNS.map((column) => `e.${column}`).join(', '));
      return page === undefined || holdsNul([query.stream, query.type]) ? [] : pool.sql<EventRow>(page.sql, page.params);
    },
    async history(stream) {
      // Keys are few: their names are read whole, then told by id.
      const names = new Map((await pool.sql<{ id: number; name: string }>('SELECT id, name FROM api_keys')).map((key) => [key.id, key.name]));
      return historyOf(await streamEvents(stream), whoOf((id) => names.get(id)));
    },
    lastSeq: () => lastSeq(pool),
    hashAt: async (seq) => (await pool.sql<{ hash: string }>('SELECT hash FROM events WHERE seq = $1', [seq]))[0]?.hash,
  };
}
