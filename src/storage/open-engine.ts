import type { DatabaseSetting } from './database.ts';
import type { CopyDestination, Engine, EngineOptions, StoredDatabase } from './engine.ts';
import type { StorageBusyError, StorageFault } from './errors.ts';
import { PostgresEngine } from './postgres/engine.ts';
import { storageErrorOf as postgresStorageErrorOf } from './postgres/errors.ts';
import { type LogAndKeys, openLogAndKeys } from './postgres/log-and-keys.ts';
import { postgresSession } from './postgres/session.ts';
import type { AppendedToReadTables } from './read-tables.ts';
import type { SqlSession } from './sql.ts';
import { openStoredPostgres, postgresCopyDestination } from './postgres/stored.ts';
import { SqliteEngine } from './sqlite/engine.ts';
import { storageFaultOf } from './storage-fault.ts';
import { openStoredSqlite, refuseMissing, sqliteCopyDestination } from './sqlite/stored.ts';

/**
 * The one place an engine is chosen: from the database setting (`TRADEBOOK_DB`), the SQLite file or the PostgreSQL
 * URL it names. Everything above `storage/` reaches an engine through here and the port (`engine.ts`).
 */

/**
 * The database `setting` names, on its engine: migrated, its appends applied to the read tables through `appended`.
 * The read-models layer brings the tables up before anything is served (`read-models/open.ts`).
 */
export function openEngine(setting: DatabaseSetting, appended: AppendedToReadTables, options: EngineOptions = {}): Promise<Engine> {
  return setting.engine === 'postgres' ? PostgresEngine.open(setting.url, appended, options) : SqliteEngine.open(setting.file, appended, options);
}

/** The database as it is, for the commands that only look or copy (`StoredDatabase`); a SQLite file must exist. */
export function openStored(setting: DatabaseSetting): StoredDatabase {
  return setting.engine === 'postgres' ? openStoredPostgres(setting.url) : openStoredSqlite(setting.file);
}

/** The database `setting` names as a copy's destination, opened by the copy's load only. */
export function openCopyDestination(setting: DatabaseSetting): CopyDestination {
  return setting.engine === 'postgres' ? postgresCopyDestination(setting.url) : sqliteCopyDestination(setting.file);
}

/**
 * PostgreSQL's API keys and log without the read tables (keys and auditors need none), migrated. The log's end
 * tells a new database, whose read tables the read-models layer makes.
 */
export function openPostgresLogAndKeys(url: string): Promise<LogAndKeys> {
  return openLogAndKeys(url);
}

/** Refuses a SQLite path where there is no file, instead of creating an empty database there. */
export { refuseMissing as refuseMissingSqliteFile };

/** A session on the log and keys as auditors read them: a SQLite file as it is, a PostgreSQL database migrated. */
export async function openLog(setting: DatabaseSetting): Promise<{ readOn: SqlSession; close(): Promise<void> }> {
  if (setting.engine === 'sqlite') return openStored(setting);
  const { pool, close } = await openLogAndKeys(setting.url);
  return { readOn: postgresSession(() => pool), close };
}

/** `tradebook rebuild` on PostgreSQL: a build beside the served tables on a connection of its own. */
export { besidePostgresDatabase } from './postgres/build-beside.ts';

/** A point-in-time copy is always a SQLite file, whichever engine it is copied from. */
export { writePointInTimeFile } from './sqlite/point-in-time.ts';

/**
 * An error of either engine's storage named as the engine-neutral error it is (a `StorageFault`, a
 * `StorageBusyError`); undefined for any other. For where no engine is open yet, or the error may come from
 * either (a copy between them).
 */
export function storageErrorOf(error: unknown): StorageFault | StorageBusyError | undefined {
  return storageFaultOf(error) ?? postgresStorageErrorOf(error);
}
