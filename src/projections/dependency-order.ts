/** What ordering needs of a projector: its name and the read models it comes after. */
export interface Ordered {
  name: string;
  after: readonly string[];
}

/**
 * `list` ordered so that every item comes after the ones its `after` names (a topological sort); items that
 * depend on nothing between them keep their order in `list`. A name `after` refers to that is not in `list`,
 * a name listed twice, or a cycle is a mistake in the code: it throws.
 */
export function inDependencyOrder<P extends Ordered>(list: readonly P[]): P[] {
  const byName = new Map<string, P>();
  for (const p of list) {
    if (byName.has(p.name)) throw new Error(`read model "${p.name}" is listed twice`);
    byName.set(p.name, p);
  }
  for (const p of list) {
    for (const name of p.after) if (!byName.has(name)) throw new Error(`read model "${p.name}" comes after "${name}", which is not listed`);
  }
  const ordered: P[] = [];
  const placed = new Set<string>();
  const waiting = [...list];
  while (waiting.length > 0) {
    // The first one listed whose predecessors are all placed: a stable order.
    const next = waiting.findIndex((p) => p.after.every((name) => placed.has(name)));
    if (next === -1) throw new Error(`read models come after each other in a cycle (or after one): ${waiting.map((p) => p.name).join(', ')}`);
    const [p] = waiting.splice(next, 1);
    ordered.push(p);
    placed.add(p.name);
  }
  return ordered;
}
