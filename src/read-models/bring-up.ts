import type { StoredEvent } from '../events/rows.ts';
import type { Projector } from '../projections/projector.ts';
import { Projections, logEnd, readCheckpoints } from '../projections/registry.ts';
import type { BuiltAtOpen, ReadTablesAtOpen } from '../storage/read-tables.ts';
import type { SqlSession } from '../storage/sql.ts';

/**
 * Makes the read tables current before anything is served: builds every table when any is missing (a new
 * database, or one whose log was copied in) or, where the engine rebuilds them, built by another version, and
 * otherwise applies the events after their checkpoints.
 */
export async function bringReadTablesUp(list: Projector[], engine: ReadTablesAtOpen): Promise<BuiltAtOpen> {
  const checkpoints = await readCheckpoints(engine.session);
  const missing = list.filter((p) => !checkpoints.has(p.name)).map((p) => p.name);
  const changed = engine.rebuildChanged
    ? list.filter((p) => checkpoints.has(p.name) && checkpoints.get(p.name)!.version !== p.version).map((p) => p.name)
    : [];
  const end = await logEnd(engine.session);
  if (missing.length > 0 || changed.length > 0) {
    await engine.buildAll(end);
    return { missing, changed, end };
  }
  const from = Math.min(...list.map((p) => checkpoints.get(p.name)!.last_seq));
  if (from < end) {
    await engine.inWrite(() => catchUp(list, engine.session, engine.eventsAfter(from)));
  }
  return { missing: [], changed: [], end };
}

/** Applies `events` (those after the checkpoints) to the served tables and moves the checkpoints, inside the caller's write. */
export async function catchUp(list: Projector[], session: SqlSession, events: Iterable<StoredEvent> | AsyncIterable<StoredEvent>): Promise<void> {
  const projections = new Projections(session, list);
  await projections.replay(events);
  await projections.flush();
}
