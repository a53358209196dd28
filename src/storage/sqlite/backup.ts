import type { Sqlite } from './open.ts';

/** Pages a backup step copies: all of them, in one step. */
const ALL_PAGES = 0x7fffffff;

/**
 * A consistent copy of a database other processes keep reading and writing (a live server's), written to a new
 * file: SQLite's online backup, every page in one step under one read snapshot. (In small steps, every commit a
 * server made meanwhile would restart the copy from the first page, and a busy server's copy might never finish.)
 */
export async function backupTo(db: Sqlite, destination: string): Promise<{ pages: number }> {
  const { totalPages } = await db.backup(destination, { progress: () => ALL_PAGES });
  return { pages: totalPages };
}
