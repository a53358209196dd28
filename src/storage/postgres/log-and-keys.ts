import { type Clock, systemClock } from '../../lib/clock.ts';
import { type PostgresDatabase, type Sql, openPostgres } from './connection.ts';
import { unreachableOf } from './errors.ts';
import { PostgresKeyStore } from './keys-and-tokens.ts';
import { migrate } from './migrate.ts';
import { PostgresEngine } from './engine.ts';
import type { ReadModels } from '../read-tables.ts';
import { lastSeq } from './event-log.ts';
import { PostgresWriter } from './writer.ts';

/** What the command line needs of PostgreSQL without the read tables: the API keys, and the pool the log is read on. */
export interface LogAndKeys {
  readonly keys: PostgresKeyStore;
  /** Keys are changed through a writer of their own. */
  readonly writer: PostgresWriter;
  /** Committed work only: the log and the keys as auditors read them (`audit/reads.ts`). */
  readonly pool: Sql;
  close(): Promise<void>;
}

/**
 * Connects to the database `url` names and migrates it (an empty database gets its schema, read tables included):
 * keys are changed through a writer of its own, under the chain head's lock as every server's writes. A database
 * that cannot be reached is `DatabaseUnreachable`, the URL named without its password.
 */
export async function openLogAndKeys(url: string, readModels: ReadModels, clock: Clock = systemClock): Promise<LogAndKeys> {
  let db: PostgresDatabase | undefined;
  try {
    db = openPostgres(url);
    // The first statement: whether the server is there, lets us in and has the database shows here.
    await migrate(db.session);
    // A new database gets its read tables too, empty, as a new SQLite file does (it verifies like any other);
    // one with a log is left for a server or `rebuild` to bring up.
    if ((await lastSeq(db.session)) === 0) await PostgresEngine.onMigrated(db, readModels, { clock });
  } catch (error) {
    await db?.close();
    throw unreachableOf(error, url) ?? error;
  }
  const { session, pool, close } = db;
  const writer = new PostgresWriter(session, { fateOn: pool });
  return {
    keys: new PostgresKeyStore(writer, pool),
    writer,
    pool,
    close,
  };
}
