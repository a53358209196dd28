import fs from 'node:fs';
import type { CopyDestination, StoredDatabase } from '../engine.ts';
import { DatabaseUnreachable } from '../errors.ts';
import { backupTo } from './backup.ts';
import { sqliteCopySource } from './copy-source.ts';
import { sqliteCopyTarget } from './copy-target.ts';
import { openSqlite } from './open.ts';
import { sqliteSession } from './session.ts';
import { freshBuild } from './read-tables.ts';

/** Refuses a path where there is no file, instead of creating an empty database there. */
export function refuseMissing(file: string): void {
  if (!fs.existsSync(file)) throw new DatabaseUnreachable(`no database at ${file} (set --db or TRADEBOOK_DB)`);
}

/**
 * The SQLite file as it is, read-only, without the migrations or catch-up an ordinary open runs: the commands that
 * only look must see what is there.
 */
export function openStoredSqlite(file: string): StoredDatabase {
  refuseMissing(file);
  const db = openSqlite(file, { readonly: true });
  return {
    readOn: sqliteSession(db),
    fresh: (work) => freshBuild(db, work),
    copySource: () => sqliteCopySource(db),
    backup: (into) => backupTo(db, into),
    close: async () => {
      db.close();
    },
  };
}

/** The SQLite file `file` as a copy's destination, created (with its folder) when missing, by the copy's load only. */
export function sqliteCopyDestination(file: string): CopyDestination {
  const copy = sqliteCopyTarget(file);
  return { copy, close: async () => copy.close() };
}
