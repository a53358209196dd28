import type { DatabaseSetting } from '../storage/database.ts';
import { besidePostgresDatabase } from '../storage/open-engine.ts';
import type { RebuildProgress } from '../storage/read-tables.ts';
import { type OnBuilt, openWithReadTables } from './open.ts';
import type { ReadModels } from './read-models.ts';
import { rebuild } from './rebuild.ts';
import { rebuildOnThread } from './rebuild-thread.ts';

/**
 * `tradebook rebuild`: every read table built beside the served ones and swapped in while servers keep serving and
 * writing; on SQLite on a thread of its own after an ordinary open (migrated, current), on PostgreSQL on a
 * connection of its own, migrated first. `onRetry` hears why a SQLite rebuild starts again without its heap limit.
 */
export async function rebuildReadTables(
  setting: DatabaseSetting,
  readModels: ReadModels,
  options: { onProgress: (progress: RebuildProgress) => void; onRetry: (reason: string) => void; onBuilt?: OnBuilt },
): Promise<{ events: number }> {
  if (setting.engine === 'postgres') return besidePostgresDatabase(setting.url, (beside) => rebuild(readModels, beside, { onProgress: options.onProgress }));
  await (await openWithReadTables(setting, readModels, { onBuilt: options.onBuilt })).close();
  return rebuildOnThread(setting.file, readModels, options.onProgress, options.onRetry);
}
