import os from 'node:os';
import path from 'node:path';
import { openSqlite } from '../../src/db/open.ts';
import { GENESIS_HASH, chainHash } from '../../src/events/hash.ts';
import { readEvents } from '../../src/events/store.ts';
import { buildProjections, openScratch, removeScratch } from '../../src/projections/rebuild.ts';
import { projectors } from '../../src/projections/registry.ts';

/**
 * What `tradebook verify` checks, through the library: the event log's hash chain is unbroken and every
 * read table equals a fresh rebuild from the log. Returns the problems found (none: the database is sound).
 */
export function verifyDatabase(file: string): string[] {
  const problems: string[] = [];
  const db = openSqlite(file, { readonly: true });
  const scratch = openScratch(path.join(os.tmpdir(), `tradebook-verify-${process.pid}-${Date.now()}.db`));
  try {
    let previous = GENESIS_HASH;
    let expectedSeq = 1;
    for (const row of readEvents(db)) {
      if (row.seq !== expectedSeq) problems.push(`event seq ${row.seq} follows ${expectedSeq - 1}`);
      if (chainHash(previous, row) !== row.hash) problems.push(`event ${row.seq}: hash chain broken`);
      previous = row.hash;
      expectedSeq = row.seq + 1;
    }
    buildProjections(scratch, db);
    for (const table of projectors.flatMap((p) => p.tables)) {
      const rows = (handle: typeof db) => (handle.prepare(`SELECT * FROM "${table}"`).all() as unknown[]).map((r) => JSON.stringify(r)).sort();
      const live = rows(db);
      const rebuilt = rows(scratch);
      if (live.length !== rebuilt.length || live.some((r, i) => r !== rebuilt[i])) {
        problems.push(`read table ${table} differs from a rebuild (${live.length} rows live, ${rebuilt.length} rebuilt)`);
      }
    }
  } finally {
    db.close();
    removeScratch(scratch);
  }
  return problems;
}
