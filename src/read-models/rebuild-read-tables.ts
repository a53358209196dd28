import type { DatabaseSetting } from '../storage/database.ts';
import type { EngineOptions } from '../storage/engine.ts';
import { openEngine, rebuildPostgresDatabase } from '../storage/open-engine.ts';
import type { RebuildProgress } from '../storage/read-tables.ts';
import { readModels } from './read-models.ts';
import { rebuildOnThread } from './rebuild-thread.ts';

/**
 * `tradebook rebuild`: every read table built beside the served ones and swapped in while servers keep serving and
 * writing; on SQLite on a thread of its own after an ordinary open (migrated, current), on PostgreSQL on a
 * connection of its own, migrated first. `onRetry` hears why a SQLite rebuild starts again without its heap limit.
 */
export async function rebuildReadTables(
  setting: DatabaseSetting,
  options: { onProgress: (progress: RebuildProgress) => void; onRetry: (reason: string) => void; onBuilt?: EngineOptions['onBuilt'] },
): Promise<{ events: number }> {
  if (setting.engine === 'postgres') return rebuildPostgresDatabase(setting.url, readModels, options.onProgress);
  await (await openEngine(setting, readModels, { onBuilt: options.onBuilt })).close();
  return rebuildOnThread(setting.file, options.onProgress, options.onRetry);
}
