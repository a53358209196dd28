import type { StoredEvent } from '../events/rows.ts';
import type { SqlSession } from '../storage/sql.ts';
import type { Projections } from './registry.ts';
import { createProjectionTables, logEnd, projectors, readCheckpoints } from './registry.ts';

/**
 * Makes the read tables current inside the caller's write (under its lock, so no event is appended meanwhile):
 * creates them when any is missing (a new database, or one whose log was copied in) and applies the events after
 * their checkpoints. Tables built by other versions are left as they are: the writer refuses to write beside them
 * until `tradebook rebuild` builds this version's. Returns the names of the projections created.
 */
export async function bringReadTablesUp(session: SqlSession, projections: Projections, eventsAfter: (seq: number) => AsyncIterable<StoredEvent>): Promise<string[]> {
  const checkpoints = await readCheckpoints(session);
  const missing = projectors.filter((p) => !checkpoints.has(p.name)).map((p) => p.name);
  if (missing.length > 0) await createProjectionTables(session, projectors, 0);
  const from = missing.length > 0 ? 0 : Math.min(...projectors.map((p) => checkpoints.get(p.name)!.last_seq));
  if (from < (await logEnd(session))) {
    await projections.replay(eventsAfter(from));
    await projections.flush();
  }
  return missing;
}
