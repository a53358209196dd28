import type { DatabaseSetting } from './database.ts';
import type { CopyDestination, Engine, EngineOptions, StoredDatabase } from './engine.ts';
import type { StorageBusyError, StorageFault } from './errors.ts';
import type { KeyStore, Writer } from './port.ts';
import { PostgresEngine } from './postgres/engine.ts';
import { storageErrorOf as postgresStorageErrorOf } from './postgres/errors.ts';
import { openLogAndKeys } from './postgres/log-and-keys.ts';
import { postgresSession } from './postgres/session.ts';
import type { ReadModels } from './read-tables.ts';
import type { SqlSession } from './sql.ts';
import { openStoredPostgres, postgresCopyDestination } from './postgres/stored.ts';
import { SqliteEngine } from './sqlite/engine.ts';
import { storageFaultOf } from './storage-fault.ts';
import { openStoredSqlite, refuseMissing, sqliteCopyDestination } from './sqlite/stored.ts';

/**
 * The one place an engine is chosen: from the database setting (`TRADEBOOK_DB`), the SQLite file or the PostgreSQL
 * URL it names. Everything above `storage/` reaches an engine through here and the port (`engine.ts`).
 */

/** The database `setting` names, on its engine: migrated, its read tables current, ready for a company. */
export function openEngine(setting: DatabaseSetting, readModels: ReadModels, options: EngineOptions = {}): Promise<Engine> {
  return setting.engine === 'postgres' ? PostgresEngine.open(setting.url, readModels, options) : SqliteEngine.open(setting.file, readModels, options);
}

/** The database as it is, for the commands that only look or copy (`StoredDatabase`); a SQLite file must exist. */
export function openStored(setting: DatabaseSetting, readModels: ReadModels): StoredDatabase {
  return setting.engine === 'postgres' ? openStoredPostgres(setting.url, readModels) : openStoredSqlite(setting.file, readModels);
}

/** The database `setting` names as a copy's destination, opened by the copy's load only. */
export function openCopyDestination(setting: DatabaseSetting): CopyDestination {
  return setting.engine === 'postgres' ? postgresCopyDestination(setting.url) : sqliteCopyDestination(setting.file);
}

/**
 * The API keys of the database, migrated; on PostgreSQL without bringing the read tables of a database with a log
 * up (keys need none).
 * `mustExist`: a SQLite path where there is no file is refused instead of an empty database made there.
 */
export async function openKeys(setting: DatabaseSetting, readModels: ReadModels, options: EngineOptions & { mustExist?: boolean } = {}): Promise<{ keys: KeyStore; writer: Writer; close(): Promise<void> }> {
  if (setting.engine === 'postgres') return openLogAndKeys(setting.url, readModels, options.clock);
  if (options.mustExist) refuseMissing(setting.file);
  const engine = await SqliteEngine.open(setting.file, readModels, options);
  return { keys: engine.keys, writer: engine.writer, close: () => engine.close() };
}

/** A session on the log and keys as auditors read them: a SQLite file as it is, a PostgreSQL database migrated. */
export async function openLog(setting: DatabaseSetting, readModels: ReadModels): Promise<{ readOn: SqlSession; close(): Promise<void> }> {
  if (setting.engine === 'sqlite') return openStored(setting, readModels);
  const { pool, close } = await openLogAndKeys(setting.url, readModels);
  return { readOn: postgresSession(() => pool), close };
}

/** `tradebook rebuild` on PostgreSQL (see `rebuildDatabase`). */
export { rebuildDatabase as rebuildPostgresDatabase } from './postgres/rebuild.ts';

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
