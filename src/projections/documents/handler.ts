import { ROWS_PER_STATEMENT, type SqlSession } from '../../storage/sql.ts';
import type { ContractorRecord } from '../../records/contractor/events.ts';
import type { DocumentRecord } from '../../records/document/events.ts';
import { type DocumentEvent, evolveDocument } from '../../records/document/evolve.ts';
import type { StoredEvent } from '../../events/rows.ts';
import { bindContractorRefresh } from '../contractors/projector.ts';
import { type EventHandler, type FlushBudget, type TableNames, drain, drainInChunks } from '../projector.ts';
import type { WriteStrategy } from '../write-strategies.ts';
import { BuildGraph } from './build-graph.ts';
import { type ComponentDocument, bindComponents } from './components.ts';
import { DocumentRecords, type DocumentRow } from './records.ts';
import { ServedDocuments } from './served.ts';

/** Changes of these fields move the figures of the whole linked component (tree nodes, paid). */
const COMPONENT_FIELDS = ['sum', 'created', 'register'];

/** The fields of a contractor a document shows: an edit of any re-renders its documents. */
const SHOWN_CONTRACTOR_FIELDS = ['type', 'name', 'contactPerson', 'inn', 'kpp'];

/**
 * The documents read model bound to a session: what each event writes at once (`records.ts`) and what it leaves
 * to the flush, which renders each component, document and contractor once however many events touched it (a
 * chain of k documents recorded in one rebuild renders k nodes, not k² as per event). Only the served rows wait
 * (and balances and JSON in contractors): what commands and other projectors read while events are applied
 * (document_records, links) is written by the event itself. Pending work is held by document key: a number per
 * document keeps a rebuild's whole log of them small. Nothing outlives a flush, so a rolled-back transaction
 * leaves nothing behind for the next one.
 */
export class DocumentsHandler {
  private readonly records: DocumentRecords;
  private readonly components: (seeds: number[]) => Promise<Iterable<ComponentDocument>>;
  private readonly served: ServedDocuments;
  private readonly refreshContractors: (ids: number[]) => Promise<void>;
  /**
   * A build renders every document once at the end, in key order, the figures of its component taken from what
   * was kept of every document (`BuildGraph`), not from walking the links written; live has none.
   */
  private readonly graph: BuildGraph | undefined;
  private readonly componentSeeds = new Set<number>();
  private readonly toRerender = new Set<number>();
  private readonly contractorsToRefresh = new Set<number>();
  /** Documents refreshed by this flush (kept across its steps). */
  private readonly refreshed = new Set<number>();
  /** A build's end: the key rendered up to, and the read of the rows after it, asked for ahead. */
  private renderedUpTo = 0;
  private nextRows: Promise<DocumentRow[]> | undefined;

  constructor(session: SqlSession, n: TableNames, strategy: WriteStrategy) {
    const contractorRecord = `SELECT record FROM ${n('contractors')} WHERE id = ?`;
    const contractor = async (id: number) => {
      const json = await session.value<string>(contractorRecord, [id]);
      return json === undefined ? undefined : (JSON.parse(json) as ContractorRecord);
    };
    this.records = new DocumentRecords(session, n, contractor, strategy);
    this.components = bindComponents(this.records);
    this.served = new ServedDocuments(session, n, contractor);
    this.refreshContractors = bindContractorRefresh(session, n, strategy);
    this.graph = strategy.renders === 'every-record-at-the-end' ? new BuildGraph() : undefined;
  }

  handler(): EventHandler {
    // Called at the end of every apply and replayed chunk, inside its transaction: nothing kept outlives it.
    return Object.assign((event: StoredEvent) => this.handle(event), {
      prepare: (events: readonly StoredEvent[]) => this.records.lookUp(events),
      persist: () => this.records.persist(),
      flush: (budget: FlushBudget) => this.flush(budget),
      discard: () => this.discard(),
    });
  }

  private handle(event: StoredEvent): Promise<void> | void {
    switch (event.type) {
      case 'DocumentRevised':
        return this.change(event, Object.keys(event.data.changes).some((k) => COMPONENT_FIELDS.includes(k)));
      case 'DocumentRecorded':
      case 'DocumentPosted':
      case 'DocumentUnposted':
      case 'DocumentLinked':
        return this.change(event, true);
      case 'ContractorAdded':
        this.records.contractorChanged(event.data.id, event.data.bonus);
        break;
      case 'ContractorEdited':
        this.records.contractorChanged(event.data.id, event.data.changes.bonus);
        // Every document rendered at the end shows its contractor as it is then.
        if (this.graph === undefined && Object.keys(event.data.changes).some((k) => SHOWN_CONTRACTOR_FIELDS.includes(k))) {
          return this.contractorEdited(event.data.id);
        }
        break;
    }
  }

  /** Folds an event into its document and marks everything derived from it for the flush. */
  private async change(event: DocumentEvent, wholeComponent: boolean): Promise<void> {
    const { docType: type, id } = event.data;
    const { key, before, doc } = await this.records.write(type, id, (current) => {
      const next = evolveDocument(() => current, event);
      if (next === undefined) throw new Error(`${event.type} of ${type}-${id}, a document not recorded`);
      return next;
    });
    if (this.graph) this.graph.set(key, type, id, doc);
    else if (wholeComponent || !before) await this.seedComponent(key, before);
    else this.toRerender.add(key);
    this.contractorsToRefresh.add(doc.fields.contractorId);
    if (before && before.fields.contractorId !== doc.fields.contractorId) this.contractorsToRefresh.add(before.fields.contractorId);
  }

  /** Marks the component of the document `key` for the flush, and those of its former parents: an unlinked parent may now head a component of its own. */
  private async seedComponent(key: number, before: DocumentRecord | undefined): Promise<void> {
    this.componentSeeds.add(key);
    for (const parent of before?.basedOn ?? []) {
      const formerParent = await this.records.load(parent.type, parent.id);
      if (formerParent) this.componentSeeds.add(formerParent.key);
    }
  }

  /** Documents show their contractor as it is now: an edit of what they show re-renders them. */
  private async contractorEdited(contractorId: number): Promise<void> {
    for (const key of await this.records.keysOfContractor(contractorId)) this.toRerender.add(key);
  }

  private async flush(budget: FlushBudget): Promise<boolean> {
    // The documents kept back go in first: the flush reads the tables, and its end forgets what is kept.
    await this.records.persist();
    const rendered = this.graph ? await this.renderAll(this.graph, budget) : await this.renderTouched(budget);
    const done = rendered && (await drainInChunks(this.contractorsToRefresh, budget, this.refreshContractors));
    await this.served.write();
    if (done) this.discard();
    return done;
  }

  /** Live: the components seeded and the documents marked, each rendered once. */
  private async renderTouched(budget: FlushBudget): Promise<boolean> {
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
    for (const { row, doc, paid, tree } of await this.components(fresh)) {
      this.refreshed.add(row.key);
      await this.served.render(row, doc, paid, tree);
    }
  }

  /**
   * A build's end: every document rendered, a statement's worth of rows read at a time in key order, each read
   * asked for before the rows before it are rendered (a network engine answers it meanwhile).
   */
  private async renderAll(graph: BuildGraph, budget: FlushBudget): Promise<boolean> {
    while (budget.left > 0) {
      const rows = await (this.nextRows ?? this.records.after(this.renderedUpTo, ROWS_PER_STATEMENT));
      this.nextRows = undefined;
      if (rows.length === 0) return true;
      this.renderedUpTo = rows[rows.length - 1].key;
      this.nextRows = this.records.after(this.renderedUpTo, ROWS_PER_STATEMENT);
      // Awaited by the next step; a build that fails first must not leave it rejected unhandled.
      this.nextRows.catch(() => {});
      const docs = rows.map((row) => JSON.parse(row.record) as DocumentRecord);
      await this.served.keepOwnersOf(docs.map((doc) => doc.fields.contractorId));
      for (const [i, row] of rows.entries()) {
        const { paid, tree } = graph.figures(row.key);
        await this.served.render(row, docs[i], paid, tree);
      }
      budget.left -= rows.length;
    }
    return false;
  }

  private discard(): void {
    this.records.discard();
    for (const pending of [this.componentSeeds, this.toRerender, this.contractorsToRefresh, this.refreshed]) pending.clear();
    this.served.forget();
    this.records.forgetContractors();
    this.graph?.forget();
    this.renderedUpTo = 0;
    this.nextRows = undefined;
  }
}
