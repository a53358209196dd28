import type { ReadModels, RebuildProgress } from './read-tables.ts';
import { openSqlite } from './sqlite/open.ts';
import { rebuild } from './sqlite/rebuild.ts';

/**
 * `tradebook rebuild` on SQLite, on a connection of its own to `file`: what the rebuild's thread
 * (`read-models/rebuild-thread.ts`) runs, so it loads the SQLite adapter alone.
 */
export async function rebuildSqliteFile(file: string, readModels: ReadModels, onProgress: (progress: RebuildProgress) => void): Promise<{ events: number }> {
  const db = openSqlite(file);
  try {
    return await rebuild(db, readModels, { onProgress });
  } finally {
    db.close();
  }
}
