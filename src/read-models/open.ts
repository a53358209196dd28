import type { DatabaseSetting } from '../storage/database.ts';
import type { Engine, EngineOptions } from '../storage/engine.ts';
import { ReadModelsDifferError } from '../storage/errors.ts';
import { openEngine, openPostgresLogAndKeys, refuseMissingSqliteFile } from '../storage/open-engine.ts';
import type { KeyStore, Writer } from '../storage/port.ts';
import { bringReadTablesUp } from './bring-up.ts';
import type { ReadModels } from './read-models.ts';

/** Told the read models whose tables were built at open (a line saying why, and their names), or why writes are refused. */
export type OnBuilt = (line: string, names: string[]) => void;

/** The database `setting` names, on its engine, handed `readModels`, its read tables current before anything is served. */
export async function openWithReadTables(setting: DatabaseSetting, readModels: ReadModels, options: EngineOptions & { onBuilt?: OnBuilt } = {}): Promise<Engine> {
  const engine = await openEngine(setting, readModels, options);
  try {
    await bringUp(engine, readModels, options.onBuilt);
  } catch (error) {
    await engine.close();
    throw error;
  }
  return engine;
}

/**
 * Makes the read tables of `engine` (opened with `readModels`) current (`bringReadTablesUp`). A table built from a
 * log is told to `onBuilt` (a new database gets its tables without a word); so is a PostgreSQL database whose read
 * models are another release's: this server still serves what they hold, and its writer refuses every write.
 */
export async function bringUp(engine: Engine, readModels: ReadModels, onBuilt?: OnBuilt): Promise<void> {
  try {
    const { missing, changed, end, rebuiltBeside } = await engine.readTables.atOpen(async (at) => ({
      ...(await bringReadTablesUp(readModels, at)),
      rebuiltBeside: 'beside' in at.buildAll,
    }));
    const built = [...changed, ...(end > 0 ? missing : [])];
    if (built.length === 0) return;
    onBuilt?.(rebuiltBeside ? `rebuilt projections whose version changed: ${built.join(', ')}` : `built the read tables from the log: ${built.join(', ')}`, built);
  } catch (error) {
    if (!(error instanceof ReadModelsDifferError)) throw error;
    onBuilt?.(error.message, []);
  }
}

/**
 * The API keys of the database `setting` names, migrated. On SQLite an ordinary open (the read tables brought up);
 * on PostgreSQL without bringing up the read tables of a database with a log (keys need none), while a new one gets
 * its tables, empty, as a new SQLite file does (it verifies like any other).
 * `mustExist`: a SQLite path where there is no file is refused instead of an empty database made there.
 */
export async function openKeys(
  setting: DatabaseSetting,
  readModels: ReadModels,
  options: EngineOptions & { onBuilt?: OnBuilt; mustExist?: boolean } = {},
): Promise<{ keys: KeyStore; writer: Writer; close(): Promise<void> }> {
  if (setting.engine === 'postgres') {
    const opened = await openPostgresLogAndKeys(setting.url);
    if (opened.logEnd > 0) return opened;
    try {
      await (await openWithReadTables(setting, readModels, options)).close();
    } catch (error) {
      await opened.close();
      throw error;
    }
    return opened;
  }
  if (options.mustExist) refuseMissingSqliteFile(setting.file);
  const engine = await openWithReadTables(setting, readModels, options);
  return { keys: engine.keys, writer: engine.writer, close: () => engine.close() };
}
