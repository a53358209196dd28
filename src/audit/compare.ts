import { type CheckpointRow, projectors } from '../projections/registry.ts';

export interface ProjectionCheck {
  ok: boolean;
  /** How many read tables were compared. */
  tables: number;
  /** One line for each thing that differs from a fresh rebuild. */
  differences: string[];
}

/** What the stored checkpoints say that a build of the log up to `builtSeq` by this code would not. */
export function checkpointDifferences(checkpoints: Map<string, CheckpointRow>, builtSeq: number): string[] {
  return projectors.flatMap((p) => {
    const stored = checkpoints.get(p.name);
    if (!stored) return [`projection ${p.name} has no checkpoint`];
    const problems: string[] = [];
    if (stored.version !== p.version) problems.push(`projection ${p.name} was built by version ${stored.version}, the code is version ${p.version}`);
    if (stored.last_seq !== builtSeq) problems.push(`projection ${p.name} is at seq ${stored.last_seq}, the log ends at ${builtSeq}`);
    return problems;
  });
}

/** How a table differs: the rows only live, those only rebuilt, and the first such row by its key (the first column). */
export function tableDifference(table: string, live: number, rebuilt: number, first: object): string {
  const [key, value] = Object.entries(first)[0];
  return `table ${table}: live rows not in a fresh rebuild: ${live}, rebuilt rows not live: ${rebuilt}; first: ${key} ${JSON.stringify(value)}`;
}

