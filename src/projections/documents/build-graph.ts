import { DOCUMENT_TYPES, type DocumentRef, type DocumentType } from '../../records/document/events.ts';
import type { KeptFigures } from '../read-model.ts';
import { type FigureNode, type Figures, figuresOf, nameOf } from './components.ts';
import type { DocumentRow } from './records.ts';
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
export class BuildGraph implements KeptFigures<DocumentRow, Figures> {
  private readonly typeIndexes = growing((length) => new Uint8Array(length));
  private readonly ids = growing((length) => new Float64Array(length));
  private readonly statuses = growing((length) => new Float64Array(length));
  private readonly sums = growing((length) => new Float64Array(length));
  private readonly registers = growing((length) => new Uint8Array(length));
  /** When it was created, as `Date.parse` reads it; NaN also where it has no time (`hasCreated` tells them apart). */
  private readonly created = growing((length) => new Float64Array(length));
  private readonly hasCreated = growing((length) => new Uint8Array(length));
  /** The key of the one document a document is based on, when it is based on one that is known; 0 otherwise. */
  private readonly parentKey = growing((length) => new Float64Array(length));
  /** What the other documents based on any are based on (several, or one not recorded yet). */
  private readonly otherParents = new Map<number, DocumentRef[]>();
  /** One past the highest key set. */
  private end = 1;
  private readonly keys = new Map<DocumentType, Map<number, number>>();
  /** Filled at the first `figures`: the keys of the documents based on each key, in key order. */
  private children: Map<number, number[]> | undefined;
  /** Figures of components computed and not asked for yet, by key. */
  private readonly ready = new Map<number, Figures>();

  /** The document with this key is as `row` holds it now. */
  set({ key, type, id, doc }: DocumentRow): void {
    let ofType = this.keys.get(type);
    if (ofType === undefined) this.keys.set(type, (ofType = new Map()));
    ofType.set(id, key);
    this.typeIndexes.set(key, DOCUMENT_TYPES.indexOf(type) + 1);
    this.ids.set(key, id);
    this.statuses.set(key, doc.status);
    this.sums.set(key, doc.fields.sum);
    this.registers.set(key, doc.fields.register ? 1 : 0);
    this.hasCreated.set(key, doc.fields.created === null ? 0 : 1);
    this.created.set(key, doc.fields.created === null ? NaN : Date.parse(doc.fields.created));
    const only = doc.basedOn.length === 1 ? this.keyOf(doc.basedOn[0]) : undefined;
    this.parentKey.set(key, only ?? 0);
    if (only === undefined && doc.basedOn.length > 0) this.otherParents.set(key, doc.basedOn);
    else this.otherParents.delete(key);
    this.end = Math.max(this.end, key + 1);
  }

  /** The paid and tree of the document, once every event is applied; each asked for once. */
  figures({ key }: DocumentRow): Figures {
    if (!this.ready.has(key)) {
      const nodes = this.componentOf(key);
      for (const [name, paid, tree] of figuresOf(nodes)) this.ready.set(nodes.get(name)!.key, { paid, tree });
    }
    const found = this.ready.get(key)!;
    this.ready.delete(key);
    return found;
  }

  forget(): void {
    for (const values of [this.typeIndexes, this.ids, this.statuses, this.sums, this.registers, this.created, this.hasCreated, this.parentKey]) values.clear();
    this.otherParents.clear();
    this.end = 1;
    this.keys.clear();
    this.children = undefined;
    this.ready.clear();
  }

  private keyOf(ref: DocumentRef): number | undefined {
    return this.keys.get(ref.type)?.get(ref.id);
  }

  private typeOf(key: number): DocumentType {
    // Type 0 marks a key without a document.
    return DOCUMENT_TYPES[this.typeIndexes.get(key) - 1];
  }

  private parentsOf(key: number): DocumentRef[] {
    const parent = this.parentKey.get(key);
    return parent === 0 ? (this.otherParents.get(key) ?? NO_PARENTS) : [{ type: this.typeOf(parent), id: this.ids.get(parent) }];
  }

  private parentKeys(key: number): number[] {
    const parent = this.parentKey.get(key);
    return parent === 0 ? (this.otherParents.get(key) ?? NO_PARENTS).flatMap((ref) => this.keyOf(ref) ?? []) : [parent];
  }

  private childrenOf(): Map<number, number[]> {
    const found = new Map<number, number[]>();
    for (let key = 1; key < this.end; key++) {
      if (this.typeIndexes.get(key) === 0) continue;
      for (const parent of this.parentKeys(key)) {
        const siblings = found.get(parent);
        if (siblings === undefined) found.set(parent, [key]);
        else if (siblings[siblings.length - 1] !== key) siblings.push(key);
      }
    }
    return found;
  }

  /** The keys of the component of `start`, in key order. */
  private membersOf(start: number, below: Map<number, number[]>): number[] {
    const members = new Set<number>();
    const reach = [start];
    while (reach.length > 0) {
      const at = reach.pop()!;
      if (members.has(at)) continue;
      members.add(at);
      reach.push(...(below.get(at) ?? []), ...this.parentKeys(at));
    }
    return [...members].sort((a, b) => a - b);
  }

  /** The figure nodes of the component of `start`, by name. */
  private componentOf(start: number): Map<string, FigureNode> {
    const below = (this.children ??= this.childrenOf());
    const name = (key: number) => nameOf({ type: this.typeOf(key), id: this.ids.get(key) });
    const nodes = new Map<string, FigureNode>();
    for (const key of this.membersOf(start, below)) {
      const type = this.typeOf(key);
      const status = this.statuses.get(key);
      nodes.set(name(key), {
        key,
        type,
        status,
        sum: this.sums.get(key),
        parents: this.parentsOf(key).map(nameOf),
        head: treeNodeHeadAt(type, this.ids.get(key), this.registers.get(key) === 1, this.hasCreated.get(key) === 1 ? this.created.get(key) : null, status),
        children: (below.get(key) ?? []).map(name),
      });
    }
    return nodes;
  }
}
