import { projectors } from '../src/projections/registry.ts';
import { everyRowOf } from '../src/storage/sqlite/maintenance.ts';
import type { Sqlite } from '../src/storage/sqlite/open.ts';

/** Every row of every read table of a database at hand (a company's, a scratch build, a copy), in a fixed order. */
export function dumpReadTables(db: Sqlite): Record<string, unknown[]> {
  return everyRowOf(db, projectors.flatMap((p) => p.tables));
}
