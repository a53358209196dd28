import { type PostgresDatabase, type Sql, openPostgres } from './connection.ts';
import { unreachableOf } from './errors.ts';
import { PostgresKeyStore } from './keys-and-tokens.ts';
import { migrate } from './migrate.ts';
import { lastSeq } from './event-log.ts';
import { PostgresWriter } from './writer.ts';

/** What the command line needs of PostgreSQL without the read tables: the API keys, and the pool the log is read on. */
export interface LogAndKeys {
  readonly keys: PostgresKeyStore;
  /** Keys are changed through a writer of their own. */
  readonly writer: PostgresWriter;
  /** Committed work only: the log and the keys as auditors read them (`audit/reads.ts`). */
  readonly pool: Sql;
  /** The seq the log ended at when it was opened: 0 for a new database, whose read tables are still to be made. */
  readonly logEnd: number;
  close(): Promise<void>;
}

/**
 * Connects to the database `url` names and migrates it (an empty database gets its schema, its read tables none):
 * keys are changed through a writer of its own, under the chain head's lock as every server's writes. A database
 * that cannot be reached is `DatabaseUnreachable`, the URL named without its password.
 */
export async function openLogAndKeys(url: string): Promise<LogAndKeys> {
  let db: PostgresDatabase | undefined;
  let logEnd: number;
  try {
    db = openPostgres(url);
    // The first statement: whether the server is there, lets us in and has the database shows here.
    await migrate(db.session);
    logEnd = await lastSeq(db.session);
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
    logEnd,
    close,
  };
}
