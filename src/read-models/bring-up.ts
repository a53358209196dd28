import type { StoredEvent } from '../events/rows.ts';
import { Projections, createProjectionTables, logEnd, readCheckpoints } from '../projections/registry.ts';
import type { ReadTablesAtOpen } from '../storage/read-tables.ts';
import { servedNames } from '../storage/read-tables.ts';
import type { SqlSession } from '../storage/sql.ts';
import { buildOn } from './build.ts';
import type { ReadModels } from './read-models.ts';
import { rebuild } from './rebuild.ts';

/** The read models whose tables were built at open, and why; the log's end when the check was made. */
export interface BuiltAtOpen {
  missing: string[];
  changed: string[];
  end: number;
}

/**
 * Makes the read tables current before anything is served: builds every table when any is missing (a new
 * database, or one whose log was copied in) or, where the engine rebuilds them, built by another version, and
 * otherwise applies the events after their checkpoints.
 */
export async function bringReadTablesUp(readModels: ReadModels, at: ReadTablesAtOpen): Promise<BuiltAtOpen> {
  const { list } = readModels;
  const checkpoints = await readCheckpoints(at.session);
  const missing = list.filter((p) => !checkpoints.has(p.name)).map((p) => p.name);
  const changed = at.rebuildChanged
    ? list.filter((p) => checkpoints.has(p.name) && checkpoints.get(p.name)!.version !== p.version).map((p) => p.name)
    : [];
  const end = await logEnd(at.session);
  if (missing.length > 0 || changed.length > 0) {
    await buildAll(readModels, at, end);
    return { missing, changed, end };
  }
  const from = Math.min(...list.map((p) => checkpoints.get(p.name)!.last_seq));
  if (from < end) {
    await at.inWrite(() => catchUp(readModels, at.session, at.eventsAfter(from)));
  }
  return { missing: [], changed: [], end };
}

/** Every table built from the whole log up to `end`: beside the served ones and swapped in, or in place. */
async function buildAll(readModels: ReadModels, at: ReadTablesAtOpen, end: number): Promise<void> {
  if ('beside' in at.buildAll) {
    await rebuild(readModels, at.buildAll.beside);
    return;
  }
  // A new database: nothing to build from.
  if (end === 0) return createProjectionTables(at.session, readModels.list, 0);
  await buildOn(readModels, at.buildAll.inPlace, servedNames, end, { readIndexes: true });
}

/** Applies `events` (those after the checkpoints) to the served tables and moves the checkpoints, inside the caller's write. */
export async function catchUp(readModels: ReadModels, session: SqlSession, events: Iterable<StoredEvent> | AsyncIterable<StoredEvent>): Promise<void> {
  const projections = new Projections(session, readModels.list);
  await projections.replay(events);
  await projections.flush();
}
