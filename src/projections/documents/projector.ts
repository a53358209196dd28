import { ROWS_PER_STATEMENT, type SqlSession } from '../../storage/sql.ts';
import type { ContractorRecord } from '../../records/contractor/events.ts';
import type { DocumentRecord } from '../../records/document/events.ts';
import { type DocumentEvent, evolveDocument } from '../../records/document/evolve.ts';
import type { StoredEvent } from '../../events/rows.ts';
import { bindContractorRefresh } from '../contractors/projector.ts';
import { type FlushBudget, type Projector, type TableNames, drain, drainInChunks } from '../projector.ts';
import { idCountsTable } from '../id-counts.ts';
import { buildGraph } from './build-graph.ts';
import { bindComponents } from './components.ts';
import { type DocumentRow, TYPE_PARTITION, bindDocumentRecords } from './records.ts';
import { bindServedDocuments } from './served.ts';
import type { WriteStrategy } from '../write-strategies.ts';

/** Changes of these fields move the figures of the whole linked component (tree nodes, paid). */
const COMPONENT_FIELDS = ['sum', 'created', 'register'];

/**
 * Every document of every type in two tables. `document_records` holds what events write and commands and
 * balances read: the record, status, number, sum and bonus; `document_id_counts` counts each type's ids in nested
 * ranges (`id-counts.ts`). `documents` holds what the lists serve: the list JSON kept ready (its last key is the
 * dependency tree), `paid`, and the columns pages filter on; an unfiltered page finds its first id from the counts
 * and reads on in (type, id) order, (type, date, status, id) serves date-filtered pages and counts from the index
 * alone. A served row is written only at the flush (after every appended record live, once at the end of a
 * rebuild), so a rebuild writes each one once, final.
 * `paid` and the tree are derived from the linked component and recomputed for the whole component whenever an
 * event moves a status, a sum, a link or a node's label.
 *
 * In parts: `records.ts` writes what an event changes at once (records, counts, links), `components.ts`
 * derives paid and the trees, `served.ts` renders the served rows; this module holds the tables and decides
 * what each event leaves to the flush.
 */
export const documentsProjector: Projector = {
  name: 'documents',
  version: 6,
  // Reads a contractor's record (its bonus programme, what a document shows of it) and rewrites its balances.
  after: ['contractors'],
  tables: ['documents', 'document_records', 'document_links', 'document_id_counts'],
  schema: (n, { types: t, clusteredTableSuffix }) => [
    `CREATE TABLE ${n('document_records')} (
       key ${t.integer} PRIMARY KEY,
       type ${t.text} NOT NULL,
       id ${t.integer} NOT NULL,
       status ${t.integer} NOT NULL,
       contractor_id ${t.integer} NOT NULL,
       number ${t.text},
       number_key ${t.text},
       number_digits ${t.text},
       sum ${t.integer} NOT NULL,
       bonus_percent ${t.real},
       bonus_accrual ${t.integer} NOT NULL,
       record ${t.text} NOT NULL,
       UNIQUE (type, id))`,
    `CREATE TABLE ${n('documents')} (
       key ${t.integer} PRIMARY KEY,
       type ${t.text} NOT NULL,
       id ${t.integer} NOT NULL,
       date ${t.text} NOT NULL,
       month ${t.text} NOT NULL,
       status ${t.integer} NOT NULL,
       contractor_id ${t.integer} NOT NULL,
       paid ${t.integer} NOT NULL,
       list_json ${t.text} NOT NULL)`,
    `CREATE TABLE ${n('document_links')} (
       child_type ${t.text} NOT NULL, child_id ${t.integer} NOT NULL, parent_type ${t.text} NOT NULL, parent_id ${t.integer} NOT NULL,
       PRIMARY KEY (child_type, child_id, parent_type, parent_id))${clusteredTableSuffix}`,
    `CREATE INDEX ${n('document_links_parent')} ON ${n('document_links')} (parent_type, parent_id)`,
    idCountsTable(n('document_id_counts'), TYPE_PARTITION, { types: t, clusteredTableSuffix }),
  ],
  countedIds: [{ rows: 'document_records', counts: 'document_id_counts', partition: TYPE_PARTITION }],
  // Built after a rebuild's load: kept up during it, these took a page of their own at random for most documents of
  // every commit (a build reads neither: see `bindContractorFigures` and `contractorEdited`).
  readIndexes: (n) => [
    // Covering: a contractor's balances are summed from the index alone, never touching the records.
    `CREATE INDEX ${n('documents_contractor')} ON ${n('document_records')} (contractor_id, status, type, sum, bonus_accrual)`,
    // Auditors find a document by its number whatever its case, or by its digits alone (`numberKey`, `numberDigits`).
    `CREATE INDEX ${n('documents_number')} ON ${n('document_records')} (number_key)`,
    `CREATE INDEX ${n('documents_number_digits')} ON ${n('document_records')} (number_digits)`,
    `CREATE INDEX ${n('documents_id')} ON ${n('documents')} (type, id)`,
    `CREATE INDEX ${n('documents_date')} ON ${n('documents')} (type, date, status, id)`,
    `CREATE INDEX ${n('documents_status')} ON ${n('documents')} (type, status, id)`,
    // A whole calendar month walks its documents in id order: OFFSET skips index entries, no sort.
    // (A column, not an expression on `date`: only then is the index covering.)
    `CREATE INDEX ${n('documents_month')} ON ${n('documents')} (type, month, id, status)`,
    // The auditors' search reads newest first from a cursor (date, key), all documents, one type's or one
    // contractor's: a page is a seek and its rows, whatever its depth.
    `CREATE INDEX ${n('documents_newest')} ON ${n('documents')} (date, key)`,
    `CREATE INDEX ${n('documents_type_newest')} ON ${n('documents')} (type, date, key)`,
    `CREATE INDEX ${n('documents_contractor_newest')} ON ${n('documents')} (contractor_id, date, key)`,
  ],
  bind(session: SqlSession, n: TableNames, strategy: WriteStrategy) {
    const contractorRecord = `SELECT record FROM ${n('contractors')} WHERE id = ?`;
    const contractor = async (id: number) => {
      const json = await session.value<string>(contractorRecord, [id]);
      return json === undefined ? undefined : (JSON.parse(json) as ContractorRecord);
    };
    const records = bindDocumentRecords(session, n, contractor, strategy);
    const components = bindComponents(records);
    const served = bindServedDocuments(session, n, contractor);
    const refreshContractors = bindContractorRefresh(session, n, strategy);
    // Rendering every document once at the end, in key order, the figures of its component are taken from what
    // was kept of every document (`buildGraph`), not from walking the links written.
    const rendersAll = strategy.renders === 'every-record-at-the-end';
    const graph = rendersAll ? buildGraph() : undefined;
    let renderedUpTo = 0;
    let nextRows: Promise<DocumentRow[]> | undefined;

    // Work deferred to the flush, so each component, document and contractor is rendered once however many
    // events touched it (a chain of k documents recorded in one rebuild renders k nodes, not k² as per event).
    // Only the served rows wait (and balances and JSON in contractors): what commands and other projectors read
    // while events are applied (document_records, links) is written by the event itself.
    // Documents by key: a number per document keeps a rebuild's whole log of them small.
    const componentSeeds = new Set<number>();
    const toRerender = new Set<number>();
    const contractorsToRefresh = new Set<number>();
    // Documents refreshed by this flush (kept across its steps).
    const refreshed = new Set<number>();
    // Nothing outlives a flush, so a rolled-back transaction leaves nothing behind for the next one.
    const discard = () => {
      records.discard();
      for (const pending of [componentSeeds, toRerender, contractorsToRefresh, refreshed]) pending.clear();
      served.forget();
      records.forgetContractors();
      graph?.forget();
      renderedUpTo = 0;
      nextRows = undefined;
    };
    /** Recomputes paid and the tree of every document connected to the seeds by links, and re-renders them. */
    const refreshComponents = async (seeds: number[]) => {
      // Components are disjoint: a walk from seeds not refreshed yet meets no refreshed document.
      const fresh = seeds.filter((seed) => !refreshed.has(seed));
      if (fresh.length === 0) return;
      for (const { row, doc, paid, tree } of await components(fresh)) {
        refreshed.add(row.key);
        await served.render(row, doc, paid, tree);
      }
    };
    /**
     * A build's end: every document rendered, a statement's worth of rows read at a time in key order, each read
     * asked for before the rows before it are rendered (a network engine answers it meanwhile).
     */
    const renderAll = async (budget: FlushBudget) => {
      while (budget.left > 0) {
        const rows = await (nextRows ?? records.after(renderedUpTo, ROWS_PER_STATEMENT));
        nextRows = undefined;
        if (rows.length === 0) return true;
        renderedUpTo = rows[rows.length - 1].key;
        nextRows = records.after(renderedUpTo, ROWS_PER_STATEMENT);
        // Awaited by the next step; a build that fails first must not leave it rejected unhandled.
        nextRows.catch(() => {});
        const docs = rows.map((row) => JSON.parse(row.record) as DocumentRecord);
        await served.keepOwnersOf(docs.map((doc) => doc.fields.contractorId));
        for (const [i, row] of rows.entries()) {
          const { paid, tree } = graph!.figures(row.key);
          await served.render(row, docs[i], paid, tree);
        }
        budget.left -= rows.length;
      }
      return false;
    };
    const flush = async (budget: FlushBudget) => {
      // The documents kept back go in first: the flush reads the tables, and its end forgets what is kept.
      await records.persist();
      const rendered = graph
        ? await renderAll(budget)
        : (await drainInChunks(componentSeeds, budget, refreshComponents)) &&
          (await drain(toRerender, budget, async (key) => {
            if (!refreshed.has(key)) await served.rerender(await records.byKey(key));
          }));
      const done = rendered && (await drainInChunks(contractorsToRefresh, budget, refreshContractors));
      await served.write();
      if (done) discard();
      return done;
    };

    /** Folds an event into its document and marks everything derived from it for the flush. */
    const change = async (event: DocumentEvent, wholeComponent: boolean) => {
      const { docType: type, id } = event.data;
      const { key, before, doc } = await records.write(type, id, (current) => {
        const next = evolveDocument(() => current, event);
        if (next === undefined) throw new Error(`${event.type} of ${type}-${id}, a document not recorded`);
        return next;
      });
      if (graph) graph.set(key, type, id, doc);
      else if (wholeComponent || !before) {
        // An unlinked parent may now head a component of its own.
        componentSeeds.add(key);
        for (const parent of before?.basedOn ?? []) {
          const formerParent = await records.load(parent.type, parent.id);
          if (formerParent) componentSeeds.add(formerParent.key);
        }
      } else {
        toRerender.add(key);
      }
      contractorsToRefresh.add(doc.fields.contractorId);
      if (before && before.fields.contractorId !== doc.fields.contractorId) contractorsToRefresh.add(before.fields.contractorId);
    };

    /** Documents show their contractor as it is now: an edit of what they show re-renders them. */
    const contractorEdited = async (contractorId: number) => {
      for (const key of await records.keysOfContractor(contractorId)) toRerender.add(key);
    };

    const handle = (event: StoredEvent) => {
      switch (event.type) {
        case 'DocumentRevised':
          return change(event, Object.keys(event.data.changes).some((k) => COMPONENT_FIELDS.includes(k)));
        case 'DocumentRecorded':
        case 'DocumentPosted':
        case 'DocumentUnposted':
        case 'DocumentLinked':
          return change(event, true);
        case 'ContractorAdded':
          records.contractorChanged(event.data.id, event.data.bonus);
          break;
        case 'ContractorEdited': {
          records.contractorChanged(event.data.id, event.data.changes.bonus);
          const shown = ['type', 'name', 'contactPerson', 'inn', 'kpp'];
          // Every document rendered at the end shows its contractor as it is then.
          if (!rendersAll && Object.keys(event.data.changes).some((k) => shown.includes(k))) return contractorEdited(event.data.id);
          break;
        }
      }
    };
    // Called at the end of every apply and replayed chunk, inside its transaction: nothing kept outlives it.
    return Object.assign(handle, { prepare: records.lookUp, persist: records.persist, flush, discard });
  },
};
