import type { SqlSession } from '../../storage/sql.ts';
import type { ContractorRecord } from '../../records/contractor/events.ts';
import type { StoredEvent } from '../../events/rows.ts';
import { bindContractorRefresh } from '../contractors/projector.ts';
import { type EventHandler, type FlushBudget, type TableNames, drainInChunks } from '../projector.ts';
import type { RecordReadModel } from '../read-model.ts';
import { RowWriter } from '../row-writer.ts';
import type { WriteStrategy } from '../write-strategies.ts';
import { type DocumentRow, DocumentReads } from './records.ts';
import { type ServedRenders, servedRenders } from './renders.ts';
import { ServedDocuments } from './served.ts';

/** Changes of these fields move the figures of the whole linked component (tree nodes, paid). */
const COMPONENT_FIELDS = ['sum', 'created', 'register'];

/** The fields of a contractor a document shows: an edit of any re-renders its documents. */
const SHOWN_CONTRACTOR_FIELDS = ['type', 'name', 'contactPerson', 'inn', 'kpp'];

/**
 * The documents read model bound to a session: what each event writes at once (the records, declared in
 * `records.ts`, written by the row writer) and what it leaves to the flush, which renders each component,
 * document and contractor once however many events touched it (a chain of k documents recorded in one rebuild
 * renders k nodes, not k² as per event). Only the served rows wait (and balances and JSON in contractors): what
 * commands and other projectors read while events are applied (document_records, links) is written by the event
 * itself. Which served rows the flush renders is the strategy's (`renders.ts`). Nothing outlives a flush, so a
 * rolled-back transaction leaves nothing behind for the next one.
 */
export class DocumentsHandler {
  /** The records' writer, and its handler of the events they read. */
  private readonly records: RowWriter<DocumentRow>;
  private readonly apply: EventHandler;
  /** The documents the event being applied wrote, each with its row before (none when it recorded it). */
  private readonly written: [DocumentRow, DocumentRow | undefined][] = [];
  private readonly served: ServedDocuments;
  private readonly renders: ServedRenders;
  private readonly refreshContractors: (ids: number[]) => Promise<void>;
  private readonly contractorsToRefresh = new Set<number>();

  constructor(model: RecordReadModel<DocumentRow>, session: SqlSession, n: TableNames, strategy: WriteStrategy) {
    const contractorRecord = `SELECT record FROM ${n('contractors')} WHERE id = ?`;
    const contractor = async (id: number) => {
      const json = await session.value<string>(contractorRecord, [id]);
      return json === undefined ? undefined : (JSON.parse(json) as ContractorRecord);
    };
    this.records = new RowWriter(model, session, n, strategy, (row, before) => void this.written.push([row, before]));
    this.apply = this.records.handler();
    this.served = new ServedDocuments(session, n, contractor);
    this.renders = servedRenders(strategy, new DocumentReads(session, n, this.records), this.served);
    this.refreshContractors = bindContractorRefresh(session, n, strategy);
  }

  handler(): EventHandler {
    // Called at the end of every apply and replayed chunk, inside its transaction: nothing kept outlives it.
    return Object.assign((event: StoredEvent) => this.handle(event), {
      prepare: this.apply.prepare,
      persist: this.apply.persist,
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
        return this.apply(event);
      case 'ContractorEdited':
        return this.contractorEdited(event);
    }
  }

  /** A contractor's bonus programme kept for its next sales; its documents shown again when what they show of it changed. */
  private async contractorEdited(event: Extract<StoredEvent, { type: 'ContractorEdited' }>): Promise<void> {
    await this.apply(event);
    if (Object.keys(event.data.changes).some((k) => SHOWN_CONTRACTOR_FIELDS.includes(k))) await this.renders.contractorShown(event.data.id);
  }

  /** Folds an event into its document and marks everything derived from it for the flush. */
  private async change(event: StoredEvent, wholeComponent: boolean): Promise<void> {
    await this.apply(event);
    for (const [row, before] of this.written.splice(0)) {
      await this.renders.written(row.type, row.id, { key: row.key, before: before?.doc, doc: row.doc }, wholeComponent);
      this.contractorsToRefresh.add(row.doc.fields.contractorId);
      if (before && before.doc.fields.contractorId !== row.doc.fields.contractorId) this.contractorsToRefresh.add(before.doc.fields.contractorId);
    }
  }

  private async flush(budget: FlushBudget): Promise<boolean> {
    // The documents kept back go in first: the flush reads the tables, and its end forgets what is kept.
    await this.apply.persist!();
    const done = (await this.renders.render(budget)) && (await drainInChunks(this.contractorsToRefresh, budget, this.refreshContractors));
    await this.served.write();
    if (done) this.discard();
    return done;
  }

  private discard(): void {
    this.apply.discard!();
    this.written.length = 0;
    this.contractorsToRefresh.clear();
    this.renders.forget();
    this.served.forget();
  }
}
