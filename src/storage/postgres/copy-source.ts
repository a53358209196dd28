import type { CopySource } from '../copy.ts';
import { LOG_SQL } from '../log-reads.ts';
import type { PostgresDatabase } from './connection.ts';
import { lastSeq, readEvents } from './event-log.ts';
import { storedKeys } from '../keys-and-tokens.ts';
import { postgresSession } from './session.ts';

/**
 * The log and keys of the PostgreSQL database `db`, read on its session in one REPEATABLE READ transaction that
 * lasts until `db` is closed: the events, their count and the keys are one snapshot while servers keep writing,
 * and the log is read a chunk at a time as the copy takes it, so memory stays flat however long it is.
 */
export async function postgresCopySource(db: PostgresDatabase): Promise<CopySource> {
  await db.session.sql('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  const count = await lastSeq(db.session);
  const snapshot = postgresSession(() => db.session);
  const keys = await storedKeys(snapshot);
  const [pointInTime] = await db.session.sql<{ until_seq: number }>('SELECT until_seq FROM point_in_time LIMIT 1');
  return {
    events: readEvents(db.session),
    count,
    keys,
    pointInTime: pointInTime?.until_seq,
    firstRecordedSince: async (iso) => (await snapshot.value<number | null>(LOG_SQL.firstSince, [iso])) ?? undefined,
  };
}
