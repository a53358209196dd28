import { staleProjections } from '../projections/registry.ts';
import type { SqlSession } from '../storage/sql.ts';
import type { ReadModels } from './read-models.ts';

/** The read models whose tables are not current, read on `session`: missing, of another version, or behind the log. */
export function staleReadModels(readModels: ReadModels, session: SqlSession): Promise<string[]> {
  return staleProjections(session, readModels.list);
}
