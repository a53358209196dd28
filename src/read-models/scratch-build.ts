import type { StoredEvent } from '../events/rows.ts';
import { buildInto } from '../projections/build.ts';
import type { Projector } from '../projections/projector.ts';
import { createProjectionTables, setCheckpoints } from '../projections/registry.ts';
import type { BuildSite, TableNames } from '../storage/read-tables.ts';
import { servedNames } from '../storage/read-tables.ts';
import { openScratchDatabase } from '../storage/scratch.ts';

/**
 * Builds every read table of `list` from `events` (the log up to `until`, in order) by way of a scratch database
 * (`storage/scratch.ts`): the read models write the same rows on every engine
 * (`test/storage/postgres/cross-engine.test.ts`), and the embedded engine applies an event without a round trip,
 * where PostgreSQL would take one a statement (a few hundred events/s). The rows are then loaded into `target`
 * under `names`, a table a transaction of the target's, and the checkpoints set at `until`; the read indexes are
 * the caller's. The scratch database is removed whatever happens.
 */
export async function buildViaScratch(
  list: Projector[],
  events: AsyncIterable<StoredEvent>,
  until: number,
  target: BuildSite & Required<Pick<BuildSite, 'load'>>,
  names: TableNames,
): Promise<void> {
  const scratch = openScratchDatabase();
  try {
    await buildInto(list, scratch.session, servedNames, events[Symbol.asyncIterator](), {
      chunk: 1000,
      readIndexes: false,
      transaction: scratch.transaction,
    });
    const { session, transaction } = target;
    await transaction(() => createProjectionTables(session, list, 0, names, false));
    for (const table of list.flatMap((p) => p.tables)) {
      const { rows, columns } = scratch.rowsOf(table);
      await transaction(() => target.load(names(table), rows, columns));
    }
    await transaction(() => setCheckpoints(session, list, until, names));
  } finally {
    scratch.remove();
  }
}
