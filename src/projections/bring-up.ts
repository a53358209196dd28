import type { StoredEvent } from '../events/rows.ts';
import type { SqlSession } from '../storage/sql.ts';
import type { Projections } from './registry.ts';
import { logEnd, projectors, readCheckpoints } from './registry.ts';

/**
 * Makes the read tables current inside the caller's write (under its lock, so no event is appended meanwhile):
 * creates them when any is missing (a new database, or one whose log was copied in) and applies the events after
 * their checkpoints. Tables built by other versions are left as they are: the writer refuses to write beside them
 * until `tradebook rebuild` builds this version's. Returns the names of the projections created.
 */
export async function bringReadTablesUp(
  session: SqlSession,
  projections: Projections,
  eventsAfter: (seq: number) => AsyncIterable<StoredEvent>,
  /** Builds every table, with its read indexes, from the whole log up to `end` (a bulk build beats applying it event by event). */
  buildAll: (end: number) => Promise<void>,
): Promise<string[]> {
  const checkpoints = await readCheckpoints(session);
  const missing = projectors.filter((p) => !checkpoints.has(p.name)).map((p) => p.name);
  const end = await logEnd(session);
  if (missing.length > 0) {
    await buildAll(end);
    return missing;
  }
  const from = Math.min(...projectors.map((p) => checkpoints.get(p.name)!.last_seq));
  if (from < end) {
    await projections.replay(eventsAfter(from));
    await projections.flush();
  }
  return [];
}
