import { createReadIndexes, setCheckpoints } from '../projections/registry.ts';
import type { BuildBeside, RebuildProgress, TableNames } from '../storage/read-tables.ts';
import { servedNames } from '../storage/read-tables.ts';
import type { SqlSession } from '../storage/sql.ts';
import { catchUp } from './bring-up.ts';
import { buildOn } from './build.ts';
import type { ReadModels } from './read-models.ts';

/** A rebuild writes its tables and indexes beside the served ones, under this prefix, until the swap renames them. */
const BUILD_PREFIX = 'rebuilding_';
const buildNames: TableNames = (name) => BUILD_PREFIX + name;

/**
 * Rebuilds every read table from the log while servers keep serving and writing. The new tables are built beside
 * the served ones under other names and swapped in by one transaction, so an interrupted rebuild leaves the served
 * tables in place (its leftovers are dropped by the next one) and a reader never sees a half-built state. Events
 * appended meanwhile are applied inside the swap. Settles with the number of events the build replayed.
 */
export async function rebuild(readModels: ReadModels, beside: BuildBeside, options: { onProgress?: (progress: RebuildProgress) => void } = {}): Promise<{ events: number }> {
  const { list } = readModels;
  await beside.dropTablesNamedWith(BUILD_PREFIX);
  try {
    const until = await beside.logEnd();
    // Where the swap cannot rename indexes, they are all created in it, from the loaded rows at once.
    await beside.build((site) => buildOn(readModels, site, buildNames, until, { readIndexes: beside.renamesIndexes, onProgress: options.onProgress }));
    await beside.swap(readModels.versions, async (session, eventsAfter) => {
      await beside.renameBuilt(session, readModels.tables, buildNames);
      if (!beside.renamesIndexes) await createIndexes(readModels, session);
      await session.run(`DROP TABLE ${session.dialect.ownTable(buildNames('projection_checkpoints'))}`);
      await setCheckpoints(session, list, until);
      // What was written while the tables were built.
      await catchUp(readModels, session, eventsAfter(until));
    });
    return { events: until };
  } catch (error) {
    // On a full disk or a lost connection the drop may fail too: the error that stopped the rebuild is the one to
    // report, and the next rebuild drops the leftovers.
    await beside.dropTablesNamedWith(BUILD_PREFIX).catch(() => {});
    throw error;
  }
}

/** The served tables' indexes under their served names: those their schemas declare (queries name some), and the read indexes. */
async function createIndexes(readModels: ReadModels, session: SqlSession): Promise<void> {
  for (const p of readModels.list) {
    for (const statement of p.schema(servedNames, session.dialect)) if (statement.startsWith('CREATE INDEX')) await session.run(statement);
  }
  await createReadIndexes(session, readModels.list, servedNames);
}
