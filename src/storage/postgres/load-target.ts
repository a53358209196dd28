import type { LoadTarget } from '../read-tables.ts';
import { placeholders } from '../sql.ts';
import type { Sql } from './connection.ts';
import { MAX_PARAMETERS } from './event-log.ts';
import { postgresSession } from './session.ts';

/** Rows a load statement carries at most: few statements, and a statement's parameters far below the limit. */
const LOAD_ROWS = 1000;

/** `sql` as where a build by way of a scratch database loads its rows: multi-row inserts, LOAD_ROWS rows a statement at most. */
export function loadTarget(sql: Sql): LoadTarget {
  return {
    session: postgresSession(() => sql),
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
