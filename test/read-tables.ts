import type { Sqlite } from '../src/storage/sqlite/open.ts';
import { projectors } from '../src/projections/registry.ts';

/** Every row of every read table, in a stable order: two databases with equal dumps serve equal bytes. */
export function dumpReadTables(db: Sqlite): Record<string, unknown[]> {
  const dump: Record<string, unknown[]> = {};
  for (const table of projectors.flatMap((p) => p.tables)) {
    const columns = db.prepare(`SELECT count(*) FROM pragma_table_info('${table}')`).pluck().get() as number;
    const everyColumn = Array.from({ length: columns }, (_, i) => i + 1).join(', ');
    dump[table] = db.prepare(`SELECT * FROM "${table}" ORDER BY ${everyColumn}`).all();
  }
  return dump;
}
