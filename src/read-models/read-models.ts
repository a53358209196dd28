import { buildInto } from '../projections/build.ts';
import type { Projector } from '../projections/projector.ts';
import { Projections, createProjectionTables, createReadIndexes, projectors, readModelVersions, staleProjections } from '../projections/registry.ts';
import { type ReadModels, servedNames } from '../storage/read-tables.ts';
import { bringReadTablesUp } from './bring-up.ts';
import { rebuild } from './rebuild.ts';
import { buildViaScratch } from './scratch-build.ts';
import { verify } from './verify.ts';

/**
 * The read models of `list` as an engine is handed them (`storage/read-tables.ts`): the engine supplies its
 * sessions, transactions, copies and swaps; bring-up, rebuild, verify and the builds are these read models' own.
 */
export function readModelsOf(list: Projector[]): ReadModels {
  return {
    tables: list.flatMap((p) => p.tables),
    versions: readModelVersions(list),
    servedIndexes: (dialect) => list.flatMap((p) => p.schema(servedNames, dialect).filter((statement) => statement.startsWith('CREATE INDEX'))),
    live: (session) => new Projections(session, list),
    stale: (session) => staleProjections(session, list),
    bringUp: (engine) => bringReadTablesUp(list, engine),
    rebuild: (beside, options) => rebuild(list, beside, options),
    verify: (fresh) => verify(list, fresh),
    build: (session, names, events, steps) => buildInto(list, session, names, events, steps),
    buildViaScratch: (events, until, target, names, transaction) => buildViaScratch(list, events, until, target, names, transaction),
    createTables: (session, lastSeq) => createProjectionTables(session, list, lastSeq),
    createReadIndexes: (session, names) => createReadIndexes(session, list, names),
  };
}

/** This release's read models. */
export const readModels = readModelsOf(projectors);
