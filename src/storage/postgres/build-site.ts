import type { StoredEvent } from '../../events/rows.ts';
import { toStoredEvent } from '../../events/store.ts';
import type { BuildSite } from '../read-tables.ts';
import { placeholders } from '../sql.ts';
import type { Sql } from './connection.ts';
import { MAX_PARAMETERS, readEvents } from './event-log.ts';
import { postgresSession } from './session.ts';

/** Rows a load statement carries at most: few statements, and a statement's parameters far below the limit. */
const LOAD_ROWS = 1000;

/** The events after `seq` on `sql` up to `until`, in their current shape, read a thousand at a time. */
export async function* storedEventsAfter(sql: Sql, seq: number, until = Infinity): AsyncGenerator<StoredEvent> {
  for await (const row of readEvents(sql, seq, 1000)) {
    if (row.seq > until) return;
    yield toStoredEvent(row);
  }
}

/**
 * `sql` as where a build writes, in `transaction`s: a round trip a statement, so it loads rows in bulk (multi-row
 * inserts, LOAD_ROWS rows a statement at most) that the read-models layer builds elsewhere.
 */
export function buildSite(sql: Sql, transaction: <T>(work: () => Promise<T>) => Promise<T>): BuildSite {
  return {
    session: postgresSession(() => sql),
    transaction,
    events: (until) => storedEventsAfter(sql, 0, until),
    async load(table, rows, columns) {
      const perStatement = Math.min(LOAD_ROWS, Math.floor(MAX_PARAMETERS / columns));
      let chunk: unknown[][] = [];
      const insert = async () => {
        if (chunk.length === 0) return;
        await sql.values(`INSERT INTO "${table}" VALUES ${placeholders(chunk.length, columns, true)}`, chunk.flat());
        chunk = [];
      };
      for (const row of rows) {
        chunk.push(row);
        if (chunk.length === perStatement) await insert();
      }
      await insert();
    },
  };
}
