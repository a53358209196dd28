import type { StoredEvent } from '../events/rows.ts';
import type { RebuildProgress } from '../storage/read-tables.ts';
import type { SqlSession } from '../storage/sql.ts';
import type { TableNames } from './projector.ts';
import { catchUp } from './bring-up.ts';
import { projectors, setCheckpoints } from './registry.ts';

/** A rebuild writes its tables and indexes beside the served ones, under this prefix, until the swap renames them. */
const BUILD_PREFIX = 'rebuilding_';
const buildNames: TableNames = (name) => BUILD_PREFIX + name;

/** What a rebuild asks of an engine: a build beside the served tables, and the swap that puts it in their place. */
export interface BuildBeside {
  /** Drops the tables whose names start with `prefix` (an interrupted rebuild's leftovers). */
  dropTablesNamedWith(prefix: string): Promise<void>;
  /** The seq the log ends at now: the build's end. */
  logEnd(): Promise<number>;
  /** Every read table and its checkpoints built from the log up to `until`, under `names`, beside the served ones. */
  build(names: TableNames, until: number, onProgress?: (progress: RebuildProgress) => void): Promise<void>;
  /**
   * Runs `work` in one transaction under the write lock, on a session of it that also reads the events after a seq:
   * every reader sees the served tables before the swap or after it, never between.
   */
  swap(work: (session: SqlSession, eventsAfter: (seq: number) => Iterable<StoredEvent> | AsyncIterable<StoredEvent>) => Promise<void>): Promise<void>;
  /** Inside the swap: the served tables of `projectors` dropped, the built ones (`names`) renamed to theirs, with their indexes. */
  renameBuilt(session: SqlSession, names: TableNames): Promise<void>;
}

/**
 * Rebuilds every read table from the log while servers keep serving and writing. The new tables are built beside
 * the served ones under other names and swapped in by one transaction, so an interrupted rebuild leaves the served
 * tables in place (its leftovers are dropped by the next one) and a reader never sees a half-built state. Events
 * appended meanwhile are applied inside the swap. Settles with the number of events the build replayed.
 */
export async function rebuild(beside: BuildBeside, options: { onProgress?: (progress: RebuildProgress) => void } = {}): Promise<{ events: number }> {
  await beside.dropTablesNamedWith(BUILD_PREFIX);
  try {
    const until = await beside.logEnd();
    await beside.build(buildNames, until, options.onProgress);
    await beside.swap(async (session, eventsAfter) => {
      await beside.renameBuilt(session, buildNames);
      await session.run(`DROP TABLE ${session.dialect.ownTable(buildNames('projection_checkpoints'))}`);
      await setCheckpoints(session, projectors, until);
      // What was written while the tables were built.
      await catchUp(session, eventsAfter(until));
    });
    return { events: until };
  } catch (error) {
    // On a full disk or a lost connection the drop may fail too: the error that stopped the rebuild is the one to
    // report, and the next rebuild drops the leftovers.
    await beside.dropTablesNamedWith(BUILD_PREFIX).catch(() => {});
    throw error;
  }
}
