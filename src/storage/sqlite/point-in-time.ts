import type { EventRow } from '../../events/rows.ts';
import type { BuildSite } from '../read-tables.ts';
import type { StoredKey } from '../port.ts';
import { sqliteCopyTarget } from './copy-target.ts';
import { refuseNewEvents } from './maintenance.ts';
import { openSqlite } from './open.ts';
import { lastSeq } from './event-log.ts';
import { buildSite } from './read-tables.ts';

/**
 * Writes the SQLite file `file` (a point in time is always one): `events` (the log up to `until`, rows as they are)
 * and `keys` in one transaction, so the copy can be served, then its read tables built by `build` (the read-models
 * layer's) on the file, the source named in `point_in_time`, and a trigger refusing new events. Answers the last seq
 * of the copy.
 */
export async function writePointInTimeFile(
  file: string,
  events: AsyncIterable<EventRow>,
  keys: StoredKey[],
  until: number,
  sourceName: string,
  build: (site: BuildSite) => Promise<void>,
): Promise<number> {
  const copy = sqliteCopyTarget(file);
  try {
    await copy.load(events, keys);
  } finally {
    copy.close();
  }
  const target = openSqlite(file);
  try {
    await build(buildSite(target, target));
    target.prepare('INSERT INTO point_in_time (until_seq, source, created_at) VALUES (?, ?, ?)').run(until, sourceName, new Date().toISOString());
    refuseNewEvents(target, 'this database is a point-in-time copy: it is read-only');
    return Math.min(until, lastSeq(target));
  } finally {
    target.close();
  }
}
