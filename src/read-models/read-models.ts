import type { Projector } from '../projections/projector.ts';
import { Projections, readModelVersions } from '../projections/registry.ts';
import type { AppendedToReadTables } from '../storage/read-tables.ts';
import type { SqlSession } from '../storage/sql.ts';

/**
 * A release's read models, as the composition root (`company.ts`) hands them on: to an engine, what applies a
 * unit's appended events to the served tables (`AppendedToReadTables`); to this layer, the list it brings up,
 * rebuilds and verifies.
 */
export interface ReadModels extends AppendedToReadTables {
  /** In the order events are applied to them. */
  readonly list: Projector[];
  /** Every read table's served name. */
  readonly tables: readonly string[];
}

export function readModelsOf(list: Projector[]): ReadModels {
  return {
    list,
    tables: list.flatMap((p) => p.tables),
    versions: readModelVersions(list),
    live: (session: SqlSession) => new Projections(session, list),
  };
}
