import type { Sqlite } from '../../storage/sqlite/open.ts';
import type { ContractorRecord } from '../../events/contractors.ts';
import type { DocumentType } from '../../events/documents.ts';
import type { StoredEvent } from '../../events/store.ts';
import { bindContractorRefresh } from '../contractors/projector.ts';
import { type FlushBudget, type Projector, type TableNames, drain, drainInChunks } from '../projector.ts';
import { bindComponents } from './components.ts';
import { type DocumentRecord, bindDocumentRecords } from './records.ts';
import { bindServedDocuments } from './served.ts';

/** Changes of these fields move the figures of the whole linked component (tree nodes, paid). */
const COMPONENT_FIELDS = ['sum', 'created', 'register'];

/**
 * Every document of every type in two tables. `document_records` holds what events write and commands and
 * balances read: the record, status, number, sum, bonus, and `position`, the rank in id order within its type.
 * `documents` holds what the lists serve: the list JSON kept ready (its last key is the dependency tree), `paid`,
 * and the columns pages filter on; `position` serves unfiltered pages as index range scans, (type, date, status,
 * id) date-filtered pages and counts from the index alone. A served row is written only at the flush (after
 * every appended record live, once at the end of a rebuild), so a rebuild writes each one once, final.
 * `paid` and the tree are derived from the linked component and recomputed for the whole component whenever an
 * event moves a status, a sum, a link or a node's label.
 *
 * In parts: `records.ts` writes what an event changes at once (records, positions, links), `components.ts`
 * derives paid and the trees, `served.ts` renders the served rows; this module holds the tables and decides
 * what each event leaves to the flush.
 */
export const documentsProjector: Projector = {
  name: 'documents',
  version: 3,
  // Reads a contractor's record (its bonus programme, what a document shows of it) and rewrites its balances.
  after: ['contractors'],
  tables: ['documents', 'document_records', 'document_links'],
  schema: (n, dialect) => [
    `CREATE TABLE ${n('document_records')} (
       key INTEGER PRIMARY KEY,
       type TEXT NOT NULL,
       id INTEGER NOT NULL,
       position INTEGER NOT NULL,
       status INTEGER NOT NULL,
       contractor_id INTEGER NOT NULL,
       number TEXT,
       sum INTEGER NOT NULL,
       bonus_percent REAL,
       bonus_accrual INTEGER NOT NULL,
       record TEXT NOT NULL,
       UNIQUE (type, id))`,
    // Covering: a contractor's balances are summed from the index alone, never touching the records.
    `CREATE INDEX ${n('documents_contractor')} ON ${n('document_records')} (contractor_id, status, type, sum, bonus_accrual)`,
    // Auditors find a document by its number.
    `CREATE INDEX ${n('documents_number')} ON ${n('document_records')} (number)`,
    `CREATE TABLE ${n('documents')} (
       key INTEGER PRIMARY KEY,
       type TEXT NOT NULL,
       id INTEGER NOT NULL,
       position INTEGER NOT NULL,
       date TEXT NOT NULL,
       month TEXT NOT NULL,
       status INTEGER NOT NULL,
       paid INTEGER NOT NULL,
       list_json TEXT NOT NULL)`,
    `CREATE TABLE ${n('document_links')} (
       child_type TEXT NOT NULL, child_id INTEGER NOT NULL, parent_type TEXT NOT NULL, parent_id INTEGER NOT NULL,
       PRIMARY KEY (child_type, child_id, parent_type, parent_id))${dialect.clusteredTableSuffix}`,
    `CREATE INDEX ${n('document_links_parent')} ON ${n('document_links')} (parent_type, parent_id)`,
  ],
  readIndexes: (n) => [
    `CREATE INDEX ${n('documents_position')} ON ${n('documents')} (type, position)`,
    `CREATE INDEX ${n('documents_date')} ON ${n('documents')} (type, date, status, id)`,
    `CREATE INDEX ${n('documents_status')} ON ${n('documents')} (type, status, id)`,
    // A whole calendar month walks its documents in id order: OFFSET skips index entries, no sort.
    // (A column, not an expression on `date`: only then is the index covering.)
    `CREATE INDEX ${n('documents_month')} ON ${n('documents')} (type, month, id, status)`,
  ],
  bind(db: Sqlite, n: TableNames) {
    const contractorRecord = db.prepare(`SELECT record FROM ${n('contractors')} WHERE id = ?`).pluck();
    const contractor = (id: number) => {
      const json = contractorRecord.get(id) as string | undefined;
      return json === undefined ? undefined : (JSON.parse(json) as ContractorRecord);
    };
    const records = bindDocumentRecords(db, n, contractor);
    const component = bindComponents(records);
    const served = bindServedDocuments(db, n, contractor);
    const refreshContractors = bindContractorRefresh(db, n);

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
      records.forgetHighest();
      for (const pending of [componentSeeds, toRerender, contractorsToRefresh, refreshed]) pending.clear();
      served.forget();
      records.forgetContractors();
    };
    /** Recomputes paid and the tree of every document connected to the seed by links, and re-renders them. */
    const refreshComponent = (seed: number) => {
      // Components are disjoint: a walk from a seed not refreshed yet meets no refreshed document.
      for (const { row, doc, paid, tree } of component(records.byKey(seed))) {
        refreshed.add(row.key);
        served.render(row, doc, paid, tree);
      }
    };
    const flush = (budget: FlushBudget) => {
      const done =
        drain(componentSeeds, budget, (seed) => {
          if (!refreshed.has(seed)) refreshComponent(seed);
        }) &&
        drain(toRerender, budget, (key) => {
          if (!refreshed.has(key)) served.rerender(records.byKey(key));
        }) &&
        drainInChunks(contractorsToRefresh, budget, refreshContractors);
      served.write();
      if (done) discard();
      return done;
    };

    /** Applies a change to one document and marks everything derived from it for the flush. */
    const change = (type: DocumentType, id: number, next: (current: DocumentRecord | undefined) => DocumentRecord, wholeComponent: boolean) => {
      const { key, before, doc } = records.write(type, id, next);
      if (wholeComponent || !before) {
        // An unlinked parent may now head a component of its own.
        componentSeeds.add(key);
        for (const parent of before?.basedOn ?? []) {
          const formerParent = records.load(parent.type, parent.id);
          if (formerParent) componentSeeds.add(formerParent.key);
        }
      } else {
        toRerender.add(key);
      }
      contractorsToRefresh.add(doc.fields.contractorId);
      if (before && before.fields.contractorId !== doc.fields.contractorId) contractorsToRefresh.add(before.fields.contractorId);
    };

    const handle = (event: StoredEvent) => {
      switch (event.type) {
        case 'DocumentRecorded': {
          const { docType, id, fields, status, basedOn } = event.data;
          change(docType, id, () => ({ fields, status, basedOn }), true);
          break;
        }
        case 'DocumentRevised': {
          const { docType, id, changes } = event.data;
          const moves = Object.keys(changes).some((k) => COMPONENT_FIELDS.includes(k));
          change(docType, id, (d) => ({ ...d!, fields: { ...d!.fields, ...changes } }), moves);
          break;
        }
        case 'DocumentPosted':
        case 'DocumentUnposted': {
          const status = event.type === 'DocumentPosted' ? 1 : 0;
          change(event.data.docType, event.data.id, (d) => ({ ...d!, status }), true);
          break;
        }
        case 'DocumentLinked':
          change(event.data.docType, event.data.id, (d) => ({ ...d!, basedOn: event.data.basedOn }), true);
          break;
        case 'ContractorAdded':
          records.forgetContractor(event.data.id);
          break;
        case 'ContractorEdited': {
          records.forgetContractor(event.data.id);
          // Documents show their contractor as it is now.
          const shown = ['type', 'name', 'contactPerson', 'inn', 'kpp'];
          if (!Object.keys(event.data.changes).some((k) => shown.includes(k))) break;
          for (const key of records.keysOfContractor(event.data.id)) toRerender.add(key);
          break;
        }
      }
    };
    // Called at the end of every apply and replayed chunk, inside its transaction: nothing kept outlives it.
    return Object.assign(handle, { persist: records.forgetHighest, flush, discard });
  },
};
