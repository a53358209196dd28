import type { StoredEvent } from '../events/rows.ts';
import type { BuildSteps, EventReader, TableNames } from '../storage/read-tables.ts';
import type { SqlSession } from '../storage/sql.ts';
import type { Projector } from './projector.ts';
import { Projections, createProjectionTables, createReadIndexes } from './registry.ts';
import { buildWrites } from './write-strategies.ts';

/** Deferred items (products, document components, contractors) flushed a transaction at the end of a build. */
const FLUSH_STEP = 5000;

/**
 * Builds every projection's tables under `names` from `events` (in seq order, the whole prefix to build): the
 * tables created, then the events applied in transactions of `chunk` (as a build writes: `buildWrites`), then the
 * deferred work flushed in steps of FLUSH_STEP items, then the ids counted, then (when asked) the read indexes,
 * built from the loaded tables at once. Engine-neutral: the
 * caller chooses where the tables go and where the events come from.
 */
export async function buildInto(
  list: Projector[],
  session: SqlSession,
  names: TableNames,
  events: EventReader,
  steps: BuildSteps,
): Promise<number> {
  await steps.transaction(() => createProjectionTables(session, list, 0, names, false));
  const projections = new Projections(session, list, names, buildWrites);
  let done = 0;
  let more = true;
  const counted = (next: IteratorResult<StoredEvent>) => {
    if (next.done) more = false;
    else done++;
    return next;
  };
  // The next `chunk` events, each read as the log reads (at once from SQLite) and handed on as it comes rather
  // than collected: an event then dies young.
  const nextChunk = (): EventReader => {
    let left = steps.chunk;
    return {
      next: () => {
        if (left-- <= 0) return { done: true, value: undefined };
        const read = events.next();
        return read instanceof Promise ? read.then(counted) : counted(read);
      },
    };
  };
  do {
    await steps.transaction(() => projections.replay(nextChunk()));
    await steps.onProgress?.(done);
  } while (more);
  while (!(await steps.transaction(() => projections.flush(FLUSH_STEP))));
  await steps.transaction(() => projections.finish());
  if (steps.readIndexes) await steps.transaction(() => createReadIndexes(session, list, names));
  return done;
}
