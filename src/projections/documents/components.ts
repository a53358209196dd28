import type { SqlSession } from '../../storage/sql.ts';
import { type DocumentRef, type DocumentType, isLineDocument } from '../../records/document/events.ts';
import type { TableNames } from '../projector.ts';
import { DocumentReads, type DocumentRow, type Link } from './records.ts';
import { treeNodeHead, treeNodeJson } from './views.ts';

/**
 * The figures a document takes from the documents linked to it (its component: every document reachable through
 * `basedOn` links either way): `paid` and the dependency tree. Any change of a status, a sum, a link or a node's
 * label moves them for the whole component, so they are computed for all its documents at once.
 */

/** Money documents whose posted sum counts as paid on every document their `basedOn` chain reaches. */
const PAYING_TYPES: readonly DocumentType[] = ['cashin', 'paymentin', 'bonus'];

/** Whether a document pays: a posted document of a paying type. */
export const pays = (type: DocumentType, status: number) => status === 1 && PAYING_TYPES.includes(type);

/** The figures a document is served with: its paid and its dependency tree as JSON text. */
export interface Figures {
  paid: number;
  tree: string;
}

/** What the figures need of a document of a component, by its name (`nameOf`). */
export interface FigureNode {
  key: number;
  type: DocumentType;
  status: number;
  sum: number;
  /** The names of the documents it is based on (those of the component count). */
  parents: string[];
  /** Its tree node's label (`treeNodeHead`). */
  head: string;
  /** The names of the documents based on it, in key order. */
  children: string[];
}

export const nameOf = (r: DocumentRef) => `${r.type}:${r.id}`;

/** The paid and tree of every document of one component, by name: a money document's tree is its component's whole forest. */
export function* figuresOf(nodes: Map<string, FigureNode>): Generator<[name: string, paid: number, tree: string]> {
  const paid = payments(nodes);
  const treeFor = treeMaker(nodes);
  for (const [self, node] of nodes) yield [self, paid.get(self) ?? 0, treeFor(self, node)];
}

/** paid: each posted payment counts once on every document its basedOn chain reaches. */
function payments(nodes: Map<string, FigureNode>): Map<string, number> {
  const paid = new Map<string, number>();
  for (const payment of nodes.values()) {
    if (!pays(payment.type, payment.status)) continue;
    const reached = new Set<string>();
    const up = [...payment.parents];
    while (up.length > 0) {
      const at = up.pop()!;
      if (reached.has(at) || !nodes.has(at)) continue;
      reached.add(at);
      up.push(...nodes.get(at)!.parents);
    }
    for (const at of reached) paid.set(at, (paid.get(at) ?? 0) + payment.sum);
  }
  return paid;
}

/** A document's tree: a line document's from the root it descends from, a money document's the whole forest. */
function treeMaker(nodes: Map<string, FigureNode>) {
  const byKey = (a: string, b: string) => nodes.get(a)!.key - nodes.get(b)!.key;
  const treeOf = (at: string, self: string, path: Set<string>): string => {
    const node = nodes.get(at)!;
    const inner = new Set(path).add(at);
    return treeNodeJson(
      node.head,
      at === self,
      node.children.filter((c) => !inner.has(c)).map((c) => treeOf(c, self, inner)),
    );
  };
  const roots = [...nodes.keys()].filter((k) => nodes.get(k)!.parents.every((p) => !nodes.has(p))).sort(byKey);
  /** The root a document descends from, following its first `basedOn` upward. */
  const rootOf = (start: string) => {
    const seen = new Set<string>();
    let at = start;
    while (!seen.has(at)) {
      seen.add(at);
      const first = nodes.get(at)!.parents.find((p) => nodes.has(p));
      if (first === undefined) return at;
      at = first;
    }
    return at;
  };
  return (self: string, node: FigureNode) =>
    isLineDocument(node.type) ? treeOf(rootOf(self), self, new Set()) : `[${roots.map((r) => treeOf(r, self, new Set())).join(',')}]`;
}

/** A walked document: its figure node with its row. */
interface Node extends FigureNode {
  row: DocumentRow;
}

/** The links' children by their parent's name. */
function childrenByParent(links: Link[]): Map<string, DocumentRef[]> {
  const children = new Map<string, DocumentRef[]>();
  for (const { parent, child } of links) {
    const siblings = children.get(nameOf(parent));
    if (siblings === undefined) children.set(nameOf(parent), [child]);
    else siblings.push(child);
  }
  return children;
}

/** The walked node of a document's row, with the names of its children (those known so far). */
function nodeOf(row: DocumentRow, children: DocumentRef[]): Node {
  const { doc } = row;
  return {
    key: row.key,
    type: row.type,
    status: doc.status,
    sum: doc.fields.sum,
    parents: doc.basedOn.map(nameOf),
    head: treeNodeHead(row.type, row.id, doc.fields, doc.status),
    children: children.map(nameOf),
    row,
  };
}

/**
 * Every document connected to the seeds (keys) by links, each with its children's names in key order. Read a
 * level at a time, whatever the number of components: the level's links to its children with one statement per
 * hundred documents, then the rows of the children and parents (a document's links are its basedOn) not met
 * yet with another, so each document's row is read once.
 */
async function walk(records: DocumentReads, seeds: number[]): Promise<Map<string, Node>> {
  const nodes = new Map<string, Node>();
  let level = await records.byKeys(seeds);
  while (level.length > 0) {
    const fresh = new Map<string, DocumentRow>();
    for (const r of level) if (!nodes.has(nameOf(r))) fresh.set(nameOf(r), r);
    const children = childrenByParent(await records.childLinksOf([...fresh.values()]));
    const unmet = new Map<string, DocumentRef>();
    for (const [name, r] of fresh) {
      const node = nodeOf(r, children.get(name) ?? []);
      nodes.set(name, node);
      for (const ref of [...(children.get(name) ?? []), ...node.row.doc.basedOn]) if (!nodes.has(nameOf(ref)) && !fresh.has(nameOf(ref))) unmet.set(nameOf(ref), ref);
    }
    level = await records.loadAll([...unmet.values()]);
  }
  const byKey = (a: string, b: string) => nodes.get(a)!.key - nodes.get(b)!.key;
  for (const node of nodes.values()) node.children.sort(byKey);
  return nodes;
}

/** The walked documents split into their components. */
function* componentsOf(nodes: Map<string, Node>): Generator<Map<string, Node>> {
  const placed = new Set<string>();
  for (const start of nodes.keys()) {
    if (placed.has(start)) continue;
    const component = new Map<string, Node>();
    const reach = [start];
    while (reach.length > 0) {
      const at = reach.pop()!;
      const node = nodes.get(at);
      if (node === undefined || placed.has(at)) continue;
      placed.add(at);
      component.set(at, node);
      reach.push(...node.children, ...node.parents);
    }
    yield component;
  }
}

/** The walked documents with their figures, one at a time: a component's trees together grow with the square of its size. */
function* documents(nodes: Map<string, Node>): Generator<readonly [DocumentRow, Figures]> {
  for (const component of componentsOf(nodes)) {
    for (const [self, paid, tree] of figuresOf(component)) {
      yield [component.get(self)!.row, { paid, tree }];
    }
  }
}

/** The documents of the components of the seeds (keys), each with its figures, read from the tables. */
export function readComponents(session: SqlSession, n: TableNames): (seeds: number[]) => Promise<Iterable<readonly [DocumentRow, Figures]>> {
  const records = new DocumentReads(session, n);
  return async (seeds) => documents(await walk(records, seeds));
}

/** Whether a document's change from `before` moves its component's figures: its status, sum, links or tree label. */
export function movesFigures({ doc }: DocumentRow, { doc: before }: DocumentRow): boolean {
  const [fields, was] = [doc.fields, before.fields];
  return (
    doc.status !== before.status ||
    fields.sum !== was.sum ||
    fields.created !== was.created ||
    fields.register !== was.register ||
    doc.basedOn.length !== before.basedOn.length ||
    doc.basedOn.some((p, i) => p.type !== before.basedOn[i].type || p.id !== before.basedOn[i].id)
  );
}
