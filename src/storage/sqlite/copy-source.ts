import { lastSeq, readEvents } from './event-log.ts';
import type { CopySource } from '../copy.ts';
import { LOG_SQL } from '../log-reads.ts';
import { storedKeys } from '../keys-and-tokens.ts';
import { pointInTimeOf } from './maintenance.ts';
import type { Sqlite } from './open.ts';
import { sqliteSession } from './session.ts';

/**
 * The log and keys of the SQLite database `db`, read in one transaction that lasts until `db` is closed: the
 * events, their count and the keys are one snapshot even while a server keeps writing the file.
 */
export async function sqliteCopySource(db: Sqlite): Promise<CopySource> {
  db.exec('BEGIN');
  const firstSince = db.prepare(LOG_SQL.firstSince).pluck();
  return {
    events: readEvents(db),
    count: lastSeq(db),
    keys: await storedKeys(sqliteSession(db)),
    pointInTime: pointInTimeOf(db),
    firstRecordedSince: async (iso) => (firstSince.get(iso) as number | null) ?? undefined,
  };
}
