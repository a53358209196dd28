import { verifyChain } from '../audit/verify-chain.ts';
import { type CheckpointRow, readCheckpoints } from '../projections/registry.ts';
import { lastSeq, readEvents } from '../storage/log-reads.ts';
import type { FreshBuild, Verification } from '../storage/read-tables.ts';
import type { SqlSession } from '../storage/sql.ts';
import { buildOn } from './build.ts';
import type { ReadModels } from './read-models.ts';

/** What the stored checkpoints say that a build of the log up to `builtSeq` by this code would not. */
function checkpointDifferences({ list }: ReadModels, checkpoints: Map<string, CheckpointRow>, builtSeq: number): string[] {
  return list.flatMap((p) => {
    const stored = checkpoints.get(p.name);
    if (!stored) return [`projection ${p.name} has no checkpoint`];
    const problems: string[] = [];
    if (stored.version !== p.version) problems.push(`projection ${p.name} was built by version ${stored.version}, the code is version ${p.version}`);
    if (stored.last_seq !== builtSeq) problems.push(`projection ${p.name} is at seq ${stored.last_seq}, the log ends at ${builtSeq}`);
    return problems;
  });
}

/** How a table differs: the rows only live, those only rebuilt, and the first such row by its key (the first column). */
function tableDifference(table: string, live: number, rebuilt: number, first: object): string {
  const [key, value] = Object.entries(first)[0];
  return `table ${table}: live rows not in a fresh rebuild: ${live}, rebuilt rows not live: ${rebuilt}; first: ${key} ${JSON.stringify(value)}`;
}

/**
 * Walks the chain and compares every read table with a fresh build of the log, row by row (every column), both
 * ways, in one snapshot even while servers write: the log, the tables and the build are of one moment.
 */
export function verify(readModels: ReadModels, fresh: FreshBuild): Promise<Verification> {
  const { tables } = readModels;
  return fresh.snapshot(async (session) => {
    const chain = await verifyChain(readEvents(session));
    const until = await lastSeq(session);
    const differences: string[] = [];
    const built = await buildOrExplain(readModels, fresh, until);
    if (built !== undefined) differences.push(built);
    else {
      differences.push(...checkpointDifferences(readModels, await readCheckpoints(session), until));
      for (const table of tables) differences.push(...(await tableDifferences(session, fresh, table)));
    }
    return { chain, projections: { ok: differences.length === 0, tables: tables.length, differences } };
  });
}

/** A log edited by hand may not even replay (data that is not JSON, a record that never existed): that is a finding, not a crash. */
async function buildOrExplain(readModels: ReadModels, fresh: FreshBuild, until: number): Promise<string | undefined> {
  try {
    // Compared row by row: the read indexes would never be used.
    await fresh.build((site, names) => buildOn(readModels, site, names, until, { readIndexes: false }));
    return undefined;
  } catch (error) {
    // A full or failing disk says nothing about the log: the check could not be made.
    const fault = fresh.storageErrorOf(error);
    if (fault) throw fault;
    return `the log does not replay: ${error instanceof Error ? error.message : String(error)}`;
  }
}

async function tableDifferences(session: SqlSession, fresh: FreshBuild, table: string): Promise<string[]> {
  if (!(await fresh.served(table))) return [`table ${table} is missing`];
  const served = session.dialect.ownTable(table);
  const rebuilt = fresh.built(table);
  const onlyIn = (a: string, b: string) => `SELECT * FROM ${a} EXCEPT SELECT * FROM ${b}`;
  const count = async (a: string, b: string) => Number(await session.value(`SELECT count(*) FROM (${onlyIn(a, b)}) AS d`));
  const live = await count(served, rebuilt);
  const rebuiltOnly = await count(rebuilt, served);
  if (live === 0 && rebuiltOnly === 0) return [];
  const [first] = await session.objects<object>(`${live > 0 ? onlyIn(served, rebuilt) : onlyIn(rebuilt, served)} LIMIT 1`);
  return [tableDifference(table, live, rebuiltOnly, first)];
}
