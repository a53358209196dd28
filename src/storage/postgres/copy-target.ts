import { EVENT_COLUMNS, type EventRow, type LogHead } from '../../events/rows.ts';
import { API_KEY_COLUMNS, type CopyTarget, TargetNotEmptyError, apiKeyValues } from '../copy.ts';
import type { PostgresDatabase, Sql } from './connection.ts';
import { chunks, placeholders } from '../sql.ts';
import { MAX_PARAMETERS, readEvents } from './event-log.ts';
import { migrate } from './migrate.ts';
import { PostgresWriter } from './writer.ts';

/** Events a statement: few round trips, and memory bounded by one statement's rows whatever the log's length. */
const EVENTS_PER_STATEMENT = 2000;

/** The PostgreSQL database `db` as the target of a copy: written on its session, read back through its pool. */
export function postgresCopyTarget(db: PostgresDatabase): CopyTarget {
  const insertEvents = (rows: EventRow[]) => insert(db.session, 'events', EVENT_COLUMNS, rows.map((event) => EVENT_COLUMNS.map((column) => event[column])));
  return {
    async load(events, keys) {
      await migrate(db.session);
      // A unit of a writer of its own: under the chain head's lock (a server started on this database meanwhile
      // waits, within the busy budget), in one transaction, and a failure leaves nothing of it.
      await new PostgresWriter(db.session).run(async () => {
        const [held] = await db.session.sql<{ seq: number; keys: number }>('SELECT coalesce((SELECT max(seq) FROM events), 0) AS seq, (SELECT count(*) FROM api_keys) AS keys');
        if (held.seq > 0 || held.keys > 0) throw new TargetNotEmptyError(held.seq, held.keys);
        let last: LogHead | undefined;
        let batch: EventRow[] = [];
        // The server inserts one statement's rows while the next are read from the source.
        let inserting: Promise<unknown> = Promise.resolve();
        for await (const row of events) {
          batch.push(row);
          if (batch.length === EVENTS_PER_STATEMENT) {
            await inserting;
            inserting = insertEvents(batch);
            // Awaited before the next statement or after the loop; a failure must not go unhandled meanwhile.
            inserting.catch(() => {});
            batch = [];
          }
          last = row;
        }
        await inserting;
        if (batch.length > 0) await insertEvents(batch);
        for (const chunk of chunks(keys, Math.floor(MAX_PARAMETERS / API_KEY_COLUMNS.length))) await insert(db.session, 'api_keys', API_KEY_COLUMNS, chunk.map(apiKeyValues));
        if (last) await db.session.sql('UPDATE chain_head SET seq = $1, hash = $2 WHERE id = 1', [last.seq, last.hash]);
      });
    },
    events: () => readEvents(db.pool),
    async head() {
      const [head] = await db.pool.sql<LogHead>('SELECT seq, hash FROM chain_head WHERE id = 1');
      return head;
    },
  };
}

/** One multi-row INSERT of `rows`, each holding a value for every one of `columns`. */
function insert(session: Sql, table: string, columns: readonly string[], rows: unknown[][]): Promise<unknown> {
  return session.sql(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${placeholders(rows.length, columns.length, true)}`, rows.flat());
}
