import { ROWS_PER_STATEMENT } from '../../storage/sql.ts';
import type { DocumentType } from '../../records/document/events.ts';
import { type FlushBudget, drain, drainInChunks } from '../projector.ts';
import type { WriteStrategy } from '../write-strategies.ts';
import { BuildGraph } from './build-graph.ts';
import { bindComponents } from './components.ts';
import { type DocumentReads, type WrittenDocument, readDocument } from './records.ts';
import type { ServedDocuments } from './served.ts';

/**
 * Which served rows a flush renders, and how it finds their figures (paid, the tree): chosen once from the write
 * strategy (`WriteStrategy.renders`), so the handler asks neither.
 */
export interface ServedRenders {
  /** An event wrote the document `written` (of this type and id); `wholeComponent` when it moved its component's figures. */
  written(type: DocumentType, id: number, written: WrittenDocument, wholeComponent: boolean): Promise<void> | void;
  /** A contractor's fields its documents show changed. */
  contractorShown(contractorId: number): Promise<void> | void;
  /** Renders what is pending, within the budget: true when nothing is left. */
  render(budget: FlushBudget): Promise<boolean>;
  forget(): void;
}

export function servedRenders(strategy: WriteStrategy, records: DocumentReads, served: ServedDocuments): ServedRenders {
  return strategy.renders === 'every-record-at-the-end' ? new EveryDocumentAtTheEnd(records, served) : new DocumentsTouched(records, served);
}

/**
 * Live: the components of the documents an event moved the figures of, walked through the links, and the other
 * documents touched, each rendered once a flush however many events touched it. Pending work is held by document
 * key: a number per document.
 */
class DocumentsTouched implements ServedRenders {
  private readonly components: ReturnType<typeof bindComponents>;
  private readonly componentSeeds = new Set<number>();
  private readonly toRerender = new Set<number>();
  /** Documents refreshed by this flush (kept across its steps). */
  private readonly refreshed = new Set<number>();

  constructor(
    private readonly records: DocumentReads,
    private readonly served: ServedDocuments,
  ) {
    this.components = bindComponents(records);
  }

  async written(_type: DocumentType, _id: number, { key, before }: WrittenDocument, wholeComponent: boolean): Promise<void> {
    if (!wholeComponent && before) {
      this.toRerender.add(key);
      return;
    }
    this.componentSeeds.add(key);
    // An unlinked parent may now head a component of its own.
    for (const parent of before?.basedOn ?? []) {
      const formerParent = await this.records.load(parent.type, parent.id);
      if (formerParent) this.componentSeeds.add(formerParent.key);
    }
  }

  /** Documents show their contractor as it is now: an edit of what they show re-renders them. */
  async contractorShown(contractorId: number): Promise<void> {
    for (const key of await this.records.keysOfContractor(contractorId)) this.toRerender.add(key);
  }

  async render(budget: FlushBudget): Promise<boolean> {
    return (
      (await drainInChunks(this.componentSeeds, budget, (seeds) => this.refreshComponents(seeds))) &&
      (await drain(this.toRerender, budget, async (key) => {
        if (!this.refreshed.has(key)) await this.served.rerender(await this.records.byKey(key));
      }))
    );
  }

  /** Recomputes paid and the tree of every document connected to the seeds by links, and re-renders them. */
  private async refreshComponents(seeds: number[]): Promise<void> {
    // Components are disjoint: a walk from seeds not refreshed yet meets no refreshed document.
    const fresh = seeds.filter((seed) => !this.refreshed.has(seed));
    if (fresh.length === 0) return;
    for (const { row, paid, tree } of await this.components(fresh)) {
      this.refreshed.add(row.key);
      await this.served.render(row, paid, tree);
    }
  }

  forget(): void {
    for (const pending of [this.componentSeeds, this.toRerender, this.refreshed]) pending.clear();
  }
}

/**
 * A build: every document rendered once at its end, in key order, the figures of its component taken from what
 * was kept of every document (`BuildGraph`), not from walking the links written. Each shows its contractor as it
 * is then.
 */
class EveryDocumentAtTheEnd implements ServedRenders {
  private readonly graph = new BuildGraph();
  /** The key rendered up to, and the read of the rows after it, asked for ahead. */
  private renderedUpTo = 0;
  private nextRows: Promise<unknown[][]> | undefined;

  constructor(
    private readonly records: DocumentReads,
    private readonly served: ServedDocuments,
  ) {}

  written(type: DocumentType, id: number, { key, doc }: WrittenDocument): void {
    this.graph.set(key, type, id, doc);
  }

  contractorShown(): void {}

  /** A statement's worth of rows read at a time in key order, each read asked for before the rows before it are rendered (a network engine answers it meanwhile). */
  async render(budget: FlushBudget): Promise<boolean> {
    while (budget.left > 0) {
      const found = await (this.nextRows ?? this.records.after(this.renderedUpTo, ROWS_PER_STATEMENT));
      this.nextRows = undefined;
      if (found.length === 0) return true;
      const rows = found.map(readDocument);
      this.renderedUpTo = rows[rows.length - 1].key;
      this.nextRows = this.records.after(this.renderedUpTo, ROWS_PER_STATEMENT);
      // Awaited by the next step; a build that fails first must not leave it rejected unhandled.
      this.nextRows.catch(() => {});
      await this.served.keepOwnersOf(rows.map((row) => row.doc.fields.contractorId));
      for (const row of rows) {
        const { paid, tree } = this.graph.figures(row.key);
        await this.served.render(row, paid, tree);
      }
      budget.left -= rows.length;
    }
    return false;
  }

  forget(): void {
    this.graph.forget();
    this.renderedUpTo = 0;
    this.nextRows = undefined;
  }
}
