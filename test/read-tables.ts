import { auditReads } from '../src/audit/reads.ts';
import type { Sqlite } from '../src/storage/sqlite/open.ts';

/** Every row of every read table of a database at hand (a scratch build, a copy), as the audit reads dump them. */
export function dumpReadTables(db: Sqlite): Record<string, unknown[]> {
  return auditReads(db).readTables();
}
