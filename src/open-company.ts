import type { Company } from './company.ts';
import type { Clock } from './lib/clock.ts';
import type { DatabaseSetting } from './storage/database.ts';
import type { KeyCacheSettings } from './tokens/key-cache.ts';
import { Tradebook } from './tradebook.ts';
import { PostgresTradebook } from './tradebook-postgres.ts';

export interface OpenCompanyOptions {
  clock?: Clock;
  /** Told the read models whose tables were built at open and why, or why writes are refused. */
  onBuilt?: (line: string) => void;
  /** Told once when writes start failing for a storage fault, once when they succeed again (SQLite's group commit). */
  onStorageFault?: (line: string) => void;
  /** PostgreSQL: a statement unanswered this long is abandoned with its connections (none: waited for). */
  stallMs?: number;
  /** Keys kept in memory, changes made elsewhere heard within `boundMs` (none: every key read each time). */
  keyCache?: KeyCacheSettings;
}

/** The company in the database `TRADEBOOK_DB` names, on its engine, with its read tables current. */
export function openCompany(setting: DatabaseSetting, options: OpenCompanyOptions = {}): Promise<Company> {
  const { clock, onBuilt, onStorageFault, stallMs, keyCache } = options;
  if (setting.engine === 'postgres') {
    return PostgresTradebook.open(setting.url, {
      clock,
      stallMs,
      keyCache,
      onCreated: (names) => onBuilt?.(`built the read tables from the log: ${names.join(', ')}`),
      onWritesRefused: onBuilt,
    });
  }
  return Tradebook.open(setting.file, { clock, onStorageFault, keyCache, onRebuilt: (names) => onBuilt?.(`rebuilt projections whose version changed: ${names.join(', ')}`) });
}
