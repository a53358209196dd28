import type { RecordReadModel } from '../read-model.ts';
import { idCountsTable } from '../id-counts.ts';
import { recordProjector } from '../row-writer.ts';
import { contractorsModel } from '../contractors/projector.ts';
import { type DocumentRow, TYPE_PARTITION, documentRecords } from './records.ts';
import { contractorShown, servedDocuments } from './served.ts';

/**
 * Every document of every type in two tables. `document_records` holds what events write and commands and
 * balances read: the record, status, number, sum and bonus; `document_id_counts` counts each type's ids in nested
 * ranges (`id-counts.ts`). `documents` holds what the lists serve: the list JSON kept ready (its last key is the
 * dependency tree), `paid`, and the columns pages filter on; an unfiltered page finds its first id from the counts
 * and reads on in (type, id) order, (type, date, status, id) serves date-filtered pages and counts from the index
 * alone. A served row is written only at the flush (after every appended record live, once at the end of a
 * rebuild), so a rebuild writes each one once, final.
 * `paid` and the tree are derived from the linked component and recomputed for the whole component whenever an
 * event moves a status, a sum, a link or a node's label. A document's contractor's balances are rendered again
 * at the flush when it changes.
 *
 * In parts, all declarations the row writer writes: `records.ts` what an event changes at once (records, counts,
 * links), `served.ts` the served rows, `components.ts` and `build-graph.ts` the figures they take from their
 * component; this module holds the tables.
 */
const documentsModel: RecordReadModel<DocumentRow> = {
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
  ...documentRecords,
  served: servedDocuments,
  lookups: { contractor: contractorShown },
  refreshes: { model: contractorsModel, ids: (d) => [d.doc.fields.contractorId] },
};

export const documentsProjector = recordProjector(documentsModel);
