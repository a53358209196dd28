import { type DocumentRef, type DocumentType, isLineDocument } from '../../events/documents.ts';
import type { DocumentRecord, DocumentRecords, DocumentRow } from './records.ts';
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

/** A document of a component with the figures it is served with. */
export interface ComponentDocument {
  row: DocumentRow;
  doc: DocumentRecord;
  paid: number;
  /** Its dependency tree as JSON text. */
  tree: string;
}

interface Node {
  ref: DocumentRef;
  row: DocumentRow;
  doc: DocumentRecord;
  head: string;
  children: string[];
  paid: number;
}

const nameOf = (r: DocumentRef) => `${r.type}:${r.id}`;

export function bindComponents(records: DocumentRecords): (seed: DocumentRow) => Promise<Iterable<ComponentDocument>> {
  /** Every document connected to the seed by links, each with its children's names in key order. */
  const walk = async (seed: DocumentRow): Promise<Map<string, Node>> => {
    const nodes = new Map<string, Node>();
    // Children come with their rows; parents (a document's basedOn) are loaded when reached.
    const queue: (DocumentRow | DocumentRef)[] = [seed];
    while (queue.length > 0) {
      const ref = queue.pop()!;
      if (nodes.has(nameOf(ref))) continue;
      const r = 'record' in ref ? ref : await records.load(ref.type, ref.id);
      if (!r) continue;
      const children = await records.children(r.type, r.id);
      const doc = JSON.parse(r.record) as DocumentRecord;
      nodes.set(nameOf(r), { ref: r, row: r, doc, head: treeNodeHead(r.type, r.id, doc.fields, doc.status), children: children.map(nameOf), paid: 0 });
      // A document's links are its basedOn: its parents need no query.
      queue.push(...children, ...doc.basedOn);
    }
    const byKey = (a: string, b: string) => nodes.get(a)!.row.key - nodes.get(b)!.row.key;
    for (const node of nodes.values()) node.children.sort(byKey);
    return nodes;
  };

  /** paid: each posted payment counts once on every document its basedOn chain reaches. */
  const addPayments = (nodes: Map<string, Node>) => {
    for (const payment of nodes.values()) {
      if (!pays(payment.ref.type, payment.doc.status)) continue;
      const reached = new Set<string>();
      const up = [...payment.doc.basedOn.map(nameOf)];
      while (up.length > 0) {
        const at = up.pop()!;
        if (reached.has(at) || !nodes.has(at)) continue;
        reached.add(at);
        up.push(...nodes.get(at)!.doc.basedOn.map(nameOf));
      }
      for (const at of reached) nodes.get(at)!.paid += payment.doc.fields.sum;
    }
  };

  /** A document's tree: a line document's from the root it descends from, a money document's the whole forest. */
  const treeMaker = (nodes: Map<string, Node>) => {
    const byKey = (a: string, b: string) => nodes.get(a)!.row.key - nodes.get(b)!.row.key;
    const treeOf = (at: string, self: string, path: Set<string>): string => {
      const node = nodes.get(at)!;
      const inner = new Set(path).add(at);
      return treeNodeJson(
        node.head,
        at === self,
        node.children.filter((c) => !inner.has(c)).map((c) => treeOf(c, self, inner)),
      );
    };
    const roots = [...nodes.keys()].filter((k) => nodes.get(k)!.doc.basedOn.every((p) => !nodes.has(nameOf(p)))).sort(byKey);
    /** The root a document descends from, following its first `basedOn` upward. */
    const rootOf = (start: string) => {
      const seen = new Set<string>();
      let at = start;
      while (!seen.has(at)) {
        seen.add(at);
        const first = nodes.get(at)!.doc.basedOn.map(nameOf).find((p) => nodes.has(p));
        if (first === undefined) return at;
        at = first;
      }
      return at;
    };
    return (self: string, node: Node) =>
      isLineDocument(node.ref.type) ? treeOf(rootOf(self), self, new Set()) : `[${roots.map((r) => treeOf(r, self, new Set())).join(',')}]`;
  };

  // One document at a time: a component's trees together grow with the square of its size.
  function* documents(nodes: Map<string, Node>): Generator<ComponentDocument> {
    const treeFor = treeMaker(nodes);
    for (const [self, node] of nodes) yield { row: node.row, doc: node.doc, paid: node.paid, tree: treeFor(self, node) };
  }
  return async (seed) => {
    const nodes = await walk(seed);
    addPayments(nodes);
    return documents(nodes);
  };
}
