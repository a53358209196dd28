import type { DocumentType } from '../../records/document/events.ts';
import { type PartitionColumn, idCountsTable } from '../id-counts.ts';
import type { RecordReadModel } from '../read-model.ts';
import { recordProjector } from '../row-writer.ts';
import { TYPE_PARTITION } from './records.ts';

/** The months' counts are kept per type and month. */
export const MONTH_PARTITION: PartitionColumn[] = [...TYPE_PARTITION, { name: 'month', type: 'text' }];

/** A document's calendar month, and its key in `documents`. */
interface DocumentMonth {
  id: number;
  type: DocumentType;
  key: number;
  month: string;
}

/**
 * Each document's calendar month (`YYYY-MM` of its date) and the counts of its type's ids in each month, in nested
 * ranges (`id-counts.ts`). A one-month list (what clients ask for most: "this month's shipments") is then paged
 * like the unfiltered lists: a page at any offset finds its first id from the month's counts in a few seeks and
 * reads on in (type, month, id) order, each row joined from `documents` by its key, and the month's count is one
 * seek. Counting or skipping the month's index entries instead cost O(month) per request. A document dated into
 * another month changes nine counts in each.
 * Its key is the document's: both tables number documents as the log first records them (`numbers.ts`). Its rows
 * are the served documents' (type, id, key, month): a build copies them once those are flushed.
 */
const monthsModel: RecordReadModel<DocumentMonth> = {
  name: 'document_months',
  version: 3,
  // A build copies its rows from the served documents.
  after: ['documents'],
  tables: ['document_months', 'document_month_id_counts'],
  schema: (n, { types: t, clusteredTableSuffix }) => [
    `CREATE TABLE ${n('document_months')} (
       type ${t.text} NOT NULL, id ${t.integer} NOT NULL, key ${t.integer} NOT NULL, month ${t.text} NOT NULL,
       PRIMARY KEY (type, id))${clusteredTableSuffix}`,
    // Covering for a page: the key of each id is read from the index, not from the table.
    `CREATE INDEX ${n('document_months_id')} ON ${n('document_months')} (type, month, id, key)`,
    idCountsTable(n('document_month_id_counts'), MONTH_PARTITION, { types: t, clusteredTableSuffix }),
  ],
  readIndexes: () => [],
  records: {
    table: 'document_months',
    stored: { id: 'integer', type: 'text', key: 'integer', month: 'text' },
    row: (m) => [m.id, m.type, m.key, m.month],
    read: { columns: ['id', 'type', 'key', 'month'], record: ([id, type, key, month]) => ({ id, type, key, month }) as DocumentMonth },
    rendered: {},
    partition: { columns: ['type'], of: (m) => [m.type] },
    numbered: 'key',
    // Its highest through the records' primary key (this table has no index on `key`): the documents read model,
    // applied first, keeps a transaction's first new document back until it is numbered here too.
    numberedAs: 'document_records',
    pagedBy: 'document_month_id_counts',
    pagedWithin: { columns: MONTH_PARTITION, of: (m) => [m.type, m.month] },
    // In this table's key order: its rows land on neighbouring pages.
    copiedFrom: (n) => `SELECT id, type, key, month FROM ${n('documents')} ORDER BY type, id`,
  },
  on: {
    DocumentRecorded: (event, months) => {
      const { docType: type, id, fields } = event.data;
      // Numbered by the writer.
      return months.add({ id, type, key: 0, month: fields.date.slice(0, 7) });
    },
    DocumentRevised: (event, months) => {
      if (event.data.changes.date === undefined) return;
      const month = event.data.changes.date.slice(0, 7);
      // Applying the same event twice changes nothing.
      return months.edit(event.data.id, (current) => (current === undefined || current.month === month ? undefined : { ...current, month }), [event.data.docType]);
    },
  },
  adds: ['DocumentRecorded'],
  addedKey: (event) => [[(event.data as { docType: DocumentType }).docType], (event.data as { id: number }).id],
};

export const documentMonthsProjector = recordProjector(monthsModel);
