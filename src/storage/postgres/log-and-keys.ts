import type { EventFilter, EventRow } from '../../events/rows.ts';
import { type Clock, systemClock } from '../../lib/clock.ts';
import { ApiKeys } from '../../tokens/api-keys.ts';
import { type PostgresDatabase, openPostgres } from './connection.ts';
import { unreachableOf } from './errors.ts';
import { eventsAfter, lastSeq, readStream } from './event-log.ts';
import { PostgresKeyStore } from './keys-and-tokens.ts';
import { migrate } from './migrate.ts';
import { PostgresWriter } from './writer.ts';

/** What runs on PostgreSQL before the read tables do: the API keys, and the log read a page or a stream at a time. */
export interface LogAndKeys {
  readonly keys: ApiKeys;
  /** Up to `limit` events after `after` (and matching `filter`), in seq order, read on the pool. */
  eventsAfter(after: number, limit: number, filter?: Omit<EventFilter, 'after'>): Promise<EventRow[]>;
  /** One stream's events in version order, read on the pool. */
  readStream(stream: string): Promise<EventRow[]>;
  /** The seq of the log's last event (0 for an empty log). */
  lastSeq(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Connects to the database `url` names and migrates it (an empty database gets its schema): keys are changed
 * through a writer of its own, under the chain head's lock as every server's writes. A database that cannot be
 * reached is `DatabaseUnreachable`, the URL named without its password.
 */
export async function openLogAndKeys(url: string, clock: Clock = systemClock): Promise<LogAndKeys> {
  let db: PostgresDatabase | undefined;
  try {
    db = openPostgres(url);
    // The first statement: whether the server is there, lets us in and has the database shows here.
    await migrate(db.session);
  } catch (error) {
    await db?.close();
    throw unreachableOf(error, url) ?? error;
  }
  const { session, pool, close } = db;
  const writer = new PostgresWriter(session);
  return {
    keys: new ApiKeys(new PostgresKeyStore(writer, pool), clock, writer),
    eventsAfter: (after, limit, filter) => eventsAfter(pool, after, limit, filter),
    readStream: (stream) => readStream(pool, stream),
    lastSeq: () => lastSeq(pool),
    close,
  };
}
