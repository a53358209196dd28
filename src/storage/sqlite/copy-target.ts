import { GENESIS_HASH } from '../../events/hash.ts';
import { EVENT_COLUMNS, type LogHead } from '../../events/rows.ts';
import { readEvents } from './event-log.ts';
import { API_KEY_COLUMNS, type CopyTarget, TargetNotEmptyError, apiKeyValues } from '../copy.ts';
import { kyselyOf, migrate } from './migrate.ts';
import { type Sqlite, openSqlite } from './open.ts';
import { storageFaultOf } from '../storage-fault.ts';

const insertInto = (table: string, columns: readonly string[]) => `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;

/**
 * The SQLite file `file` as the target of a copy, created (with its folder) when missing. It is opened by `load`
 * only, so a copy refused before it (a point-in-time source) leaves no file behind.
 */
export function sqliteCopyTarget(file: string): CopyTarget & { close(): void } {
  let db: Sqlite | undefined;
  const loaded = () => {
    if (!db) throw new Error('the copy target is read before it is loaded');
    return db;
  };
  return {
    async load(events, keys) {
      const target = (db = openSqlite(file));
      await migrate(kyselyOf(target));
      const insertEvent = target.prepare(insertInto('events', EVENT_COLUMNS));
      const insertKey = target.prepare(insertInto('api_keys', API_KEY_COLUMNS));
      // One transaction, fsynced at COMMIT (synchronous=FULL): a failure leaves no event and no key, and the write
      // lock, taken at BEGIN, keeps any other writer of the file out until the copy is whole.
      target.exec('BEGIN IMMEDIATE');
      try {
        const held = target.prepare('SELECT (SELECT coalesce(max(seq), 0) FROM events) AS seq, (SELECT count(*) FROM api_keys) AS keys').get() as { seq: number; keys: number };
        if (held.seq > 0 || held.keys > 0) throw new TargetNotEmptyError(held.seq, held.keys);
        for await (const row of events) insertEvent.run(EVENT_COLUMNS.map((column) => row[column]));
        for (const key of keys) insertKey.run(apiKeyValues(key));
        target.exec('COMMIT');
      } catch (error) {
        if (target.inTransaction) target.exec('ROLLBACK');
        throw storageFaultOf(error) ?? error;
      }
    },
    events: () => readEvents(loaded()),
    // SQLite keeps no head of its own: its writers continue from the last event.
    head: async () => (loaded().prepare('SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1').get() as LogHead | undefined) ?? { seq: 0, hash: GENESIS_HASH },
    close: () => {
      if (db?.open) db.close();
    },
  };
}
