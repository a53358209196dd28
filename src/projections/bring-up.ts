import type { StoredEvent } from '../events/rows.ts';
import type { SqlSession } from '../storage/sql.ts';
import { Projections, logEnd, projectors, readCheckpoints } from './registry.ts';

/** What making the read tables current at open asks of an engine. */
export interface ReadTablesAtOpen {
  /** Reads the checkpoints and the log's end; the catch-up writes through it. */
  session: SqlSession;
  eventsAfter(seq: number): Iterable<StoredEvent> | AsyncIterable<StoredEvent>;
  /** Builds every table, with its read indexes, from the whole log up to `end` (a bulk build beats applying it event by event). */
  buildAll(end: number): Promise<void>;
  /** Runs the catch-up as one write under the engine's write lock. */
  inWrite(work: () => Promise<void>): Promise<void>;
  /**
   * Whether tables built by another version of their projector are rebuilt here (SQLite) or left as they are
   * (PostgreSQL, where servers of another release may share the database and its writer refuses to write beside them).
   */
  rebuildChanged: boolean;
}

/** The projections whose tables were built at open, and why; the log's end when the check was made. */
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
export async function bringReadTablesUp(engine: ReadTablesAtOpen): Promise<BuiltAtOpen> {
  const checkpoints = await readCheckpoints(engine.session);
  const missing = projectors.filter((p) => !checkpoints.has(p.name)).map((p) => p.name);
  const changed = engine.rebuildChanged
    ? projectors.filter((p) => checkpoints.has(p.name) && checkpoints.get(p.name)!.version !== p.version).map((p) => p.name)
    : [];
  const end = await logEnd(engine.session);
  if (missing.length > 0 || changed.length > 0) {
    await engine.buildAll(end);
    return { missing, changed, end };
  }
  const from = Math.min(...projectors.map((p) => checkpoints.get(p.name)!.last_seq));
  if (from < end) {
    await engine.inWrite(() => catchUp(engine.session, engine.eventsAfter(from)));
  }
  return { missing: [], changed: [], end };
}

/** Applies `events` (those after the checkpoints) to the served tables and moves the checkpoints, inside the caller's write. */
export async function catchUp(session: SqlSession, events: Iterable<StoredEvent> | AsyncIterable<StoredEvent>): Promise<void> {
  const projections = new Projections(session);
  await projections.replay(events);
  await projections.flush();
}
