import type { Projector } from '../projections/projector.ts';
import { setCheckpoints } from '../projections/registry.ts';
import type { BuildBeside, RebuildProgress, TableNames } from '../storage/read-tables.ts';
import { catchUp } from './bring-up.ts';

/** A rebuild writes its tables and indexes beside the served ones, under this prefix, until the swap renames them. */
const BUILD_PREFIX = 'rebuilding_';
const buildNames: TableNames = (name) => BUILD_PREFIX + name;

/**
 * Rebuilds every read table from the log while servers keep serving and writing. The new tables are built beside
 * the served ones under other names and swapped in by one transaction, so an interrupted rebuild leaves the served
 * tables in place (its leftovers are dropped by the next one) and a reader never sees a half-built state. Events
 * appended meanwhile are applied inside the swap. Settles with the number of events the build replayed.
 */
export async function rebuild(list: Projector[], beside: BuildBeside, options: { onProgress?: (progress: RebuildProgress) => void } = {}): Promise<{ events: number }> {
  await beside.dropTablesNamedWith(BUILD_PREFIX);
  try {
    const until = await beside.logEnd();
    await beside.build(buildNames, until, options.onProgress);
    await beside.swap(async (session, eventsAfter) => {
      await beside.renameBuilt(session, buildNames);
      await session.run(`DROP TABLE ${session.dialect.ownTable(buildNames('projection_checkpoints'))}`);
      await setCheckpoints(session, list, until);
      // What was written while the tables were built.
      await catchUp(list, session, eventsAfter(until));
    });
    return { events: until };
  } catch (error) {
    // On a full disk or a lost connection the drop may fail too: the error that stopped the rebuild is the one to
    // report, and the next rebuild drops the leftovers.
    await beside.dropTablesNamedWith(BUILD_PREFIX).catch(() => {});
    throw error;
  }
}
