import { DOCUMENT_TYPES, type DocumentRecord, type DocumentRef, type DocumentType } from '../../records/document/events.ts';
import { type FigureNode, componentFigures, nameOf } from './components.ts';
import { treeNodeHeadAt } from './views.ts';

const NO_PARENTS: DocumentRef[] = [];

/** A typed array that doubles when written past its end. */
function growing<T extends Float64Array | Uint8Array>(make: (length: number) => T) {
  let values = make(1024);
  return {
    get: (at: number) => values[at],
    set(at: number, value: number) {
      if (at >= values.length) {
        const larger = make(Math.max(values.length * 2, at + 1));
        larger.set(values);
        values = larger;
      }
      values[at] = value;
    },
    clear: () => void (values = make(1024)),
  };
}

/**
 * What a build keeps of every document, by key, to derive paid and the trees at its end from memory instead of
 * walking the links it wrote: the type, id, status, sum, the fields of its tree label and what it is based on.
 * A few dozen bytes a document, in typed arrays with a slot a key (a build numbers its documents from 1), which the
 * garbage collector never walks. Nothing else writes the tables a build writes, so what it holds stays true until
 * the build ends.
 */
export function buildGraph() {
  const typeIndexes = growing((length) => new Uint8Array(length));
  const ids = growing((length) => new Float64Array(length));
  const statuses = growing((length) => new Float64Array(length));
  const sums = growing((length) => new Float64Array(length));
  const registers = growing((length) => new Uint8Array(length));
  /** When it was created, as `Date.parse` reads it; NaN also where it has no time (`hasCreated` tells them apart). */
  const created = growing((length) => new Float64Array(length));
  const hasCreated = growing((length) => new Uint8Array(length));
  /** The key of the one document a document is based on, when it is based on one that is known; 0 otherwise. */
  const parentKey = growing((length) => new Float64Array(length));
  /** What the other documents based on any are based on (several, or one not recorded yet). */
  const otherParents = new Map<number, DocumentRef[]>();
  /** One past the highest key set. */
  let end = 1;
  const keys = new Map<DocumentType, Map<number, number>>();
  /** Filled at the first `figures`: the keys of the documents based on each key, in key order. */
  let children: Map<number, number[]> | undefined;
  /** Figures of components computed and not asked for yet, by key. */
  const ready = new Map<number, { paid: number; tree: string }>();

  const keyOf = (ref: DocumentRef) => keys.get(ref.type)?.get(ref.id);
  // Type 0 marks a key without a document.
  const typeOf = (key: number) => DOCUMENT_TYPES[typeIndexes.get(key) - 1];
  const parentsOf = (key: number): DocumentRef[] => {
    const parent = parentKey.get(key);
    return parent === 0 ? (otherParents.get(key) ?? NO_PARENTS) : [{ type: typeOf(parent), id: ids.get(parent) }];
  };
  const parentKeys = (key: number): number[] => {
    const parent = parentKey.get(key);
    return parent === 0 ? (otherParents.get(key) ?? NO_PARENTS).flatMap((ref) => keyOf(ref) ?? []) : [parent];
  };

  const childrenOf = () => {
    const found = new Map<number, number[]>();
    for (let key = 1; key < end; key++) {
      if (typeIndexes.get(key) === 0) continue;
      for (const parent of parentKeys(key)) {
        const siblings = found.get(parent);
        if (siblings === undefined) found.set(parent, [key]);
        else if (siblings[siblings.length - 1] !== key) siblings.push(key);
      }
    }
    return found;
  };

  /** The figure nodes of the component of `start`, by name. */
  const componentOf = (start: number): Map<string, FigureNode> => {
    const below = (children ??= childrenOf());
    const members = new Set<number>();
    const reach = [start];
    while (reach.length > 0) {
      const at = reach.pop()!;
      if (members.has(at)) continue;
      members.add(at);
      reach.push(...(below.get(at) ?? []), ...parentKeys(at));
    }
    const name = (key: number) => nameOf({ type: typeOf(key), id: ids.get(key) });
    const nodes = new Map<string, FigureNode>();
    for (const key of [...members].sort((a, b) => a - b)) {
      nodes.set(name(key), {
        key,
        type: typeOf(key),
        status: statuses.get(key),
        sum: sums.get(key),
        parents: parentsOf(key).map(nameOf),
        head: treeNodeHeadAt(typeOf(key), ids.get(key), registers.get(key) === 1, hasCreated.get(key) === 1 ? created.get(key) : null, statuses.get(key)),
        children: (below.get(key) ?? []).map(name),
      });
    }
    return nodes;
  };

  return {
    /** The document with this key is `doc` now. */
    set(key: number, type: DocumentType, id: number, doc: DocumentRecord) {
      let ofType = keys.get(type);
      if (ofType === undefined) keys.set(type, (ofType = new Map()));
      ofType.set(id, key);
      typeIndexes.set(key, DOCUMENT_TYPES.indexOf(type) + 1);
      ids.set(key, id);
      statuses.set(key, doc.status);
      sums.set(key, doc.fields.sum);
      registers.set(key, doc.fields.register ? 1 : 0);
      hasCreated.set(key, doc.fields.created === null ? 0 : 1);
      created.set(key, doc.fields.created === null ? NaN : Date.parse(doc.fields.created));
      const only = doc.basedOn.length === 1 ? keyOf(doc.basedOn[0]) : undefined;
      parentKey.set(key, only ?? 0);
      if (only === undefined && doc.basedOn.length > 0) otherParents.set(key, doc.basedOn);
      else otherParents.delete(key);
      end = Math.max(end, key + 1);
    },
    /** The paid and tree of the document with this key, once every event is applied; each asked for once. */
    figures(key: number): { paid: number; tree: string } {
      if (!ready.has(key)) {
        const nodes = componentOf(key);
        for (const [name, paid, tree] of componentFigures(nodes)) ready.set(nodes.get(name)!.key, { paid, tree });
      }
      const found = ready.get(key)!;
      ready.delete(key);
      return found;
    },
    forget() {
      for (const values of [typeIndexes, ids, statuses, sums, registers, created, hasCreated, parentKey]) values.clear();
      otherParents.clear();
      end = 1;
      keys.clear();
      children = undefined;
      ready.clear();
    },
  };
}
