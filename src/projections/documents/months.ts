import { type SqlSession, byCount } from '../../storage/sql.ts';
import type { DocumentType } from '../../records/document/events.ts';
import type { StoredEvent } from '../../events/rows.ts';
import { type PartitionColumn, idCounts, idCountsTable } from '../id-counts.ts';
import { newIds } from '../new-ids.ts';
import { rowsKeptBack } from '../rows-kept-back.ts';
import { TYPE_PARTITION } from './records.ts';
import type { ApplyMode, Projector, TableNames } from '../projector.ts';

/** The months' counts are kept per type and month. */
export const MONTH_PARTITION: PartitionColumn[] = [...TYPE_PARTITION, { name: 'month', type: 'text' }];

/**
 * Each document's calendar month (`YYYY-MM` of its date) and the counts of its type's ids in each month, in nested
 * ranges (`id-counts.ts`). A one-month list (what clients ask for most: "this month's shipments") is then paged
 * like the unfiltered lists: a page at any offset finds its first id from the month's counts in a few seeks and
 * reads on in (type, month, id) order, each row joined from `documents` by its key, and the month's count is one
 * seek. Counting or skipping the month's index entries instead cost O(month) per request. A document dated into
 * another month changes nine counts in each.
 */
export const documentMonthsProjector: Projector = {
  name: 'document_months',
  version: 3,
  // Reads the key of the document the same event records.
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
  countedIds: [{ rows: 'document_months', counts: 'document_month_id_counts', partition: MONTH_PARTITION }],
  readIndexes: () => [],
  bind(session: SqlSession, n: TableNames, mode: ApplyMode) {
    // A build's rows are the served documents' own (type, id, key, month) once the documents are flushed (this
    // projector's flush comes after theirs): copied at once, in key order of this table, instead of kept up per event.
    if (mode === 'build') {
      const copy = `INSERT INTO ${n('document_months')} (type, id, key, month) SELECT type, id, key, month FROM ${n('documents')} ORDER BY type, id`;
      let copied = false;
      const flush = async () => {
        if (!copied) await session.run(copy);
        copied = true;
        return true;
      };
      return Object.assign(() => {}, { flush });
    }
    const monthOf = `SELECT month FROM ${n('document_months')} WHERE type = ? AND id = ?`;
    const counts = idCounts(session, n('document_month_id_counts'), MONTH_PARTITION);
    const known = newIds(session, n('document_months'), ['type']);
    // The documents projector runs first (`after`) and writes the documents it keeps back first: the document's
    // record, and so its key, exist when its row goes in.
    const insert = byCount(
      (rows) =>
        `INSERT INTO ${n('document_months')} (type, id, key, month)
         VALUES ${Array(rows).fill(`(?, ?, (SELECT key FROM ${n('document_records')} WHERE type = ? AND id = ?), ?)`).join(', ')}`,
    );
    const move = `UPDATE ${n('document_months')} SET month = ? WHERE type = ? AND id = ?`;

    /**
     * Rows of new documents wait here and go a hundred a statement, as the documents projector keeps back the same
     * documents' records: before this projector reads its rows, and at `persist` (after the documents projector's).
     */
    const added = rowsKeptBack(session, insert);

    const place = async (type: DocumentType, id: number, date: string) => {
      const month = date.slice(0, 7);
      if (await known.isNew([type], id)) {
        added.add([type, id, type, id, month]);
        known.add([type], id);
        counts.add([type, month], id);
        return;
      }
      await added.write();
      const current = (await session.value<string>(monthOf, [type, id]))!;
      if (current === month) return; // applying the same event twice changes nothing
      await session.run(move, [month, type, id]);
      counts.remove([type, current], id);
      counts.add([type, month], id);
    };
    const discard = () => {
      added.discard();
      counts.discard();
      known.forget();
    };
    const persist = async () => {
      await added.write();
      await counts.persist();
      known.forget();
    };

    const handle = (event: StoredEvent) => {
      if (event.type === 'DocumentRecorded') return place(event.data.docType, event.data.id, event.data.fields.date);
      if (event.type === 'DocumentRevised' && event.data.changes.date !== undefined) return place(event.data.docType, event.data.id, event.data.changes.date);
    };
    // A batch's documents looked up at once: documents in any id order cost a statement a hundred, not a seek each.
    const prepare = (events: readonly StoredEvent[]) =>
      known.lookUp(events.flatMap((e) => (e.type === 'DocumentRecorded' || e.type === 'DocumentRevised' ? [[[e.data.docType], e.data.id] as const] : [])));
    // `persist` comes at the end of every apply and replayed chunk, inside its transaction: the rows kept back, the
    // counts changed, the highest ids and the ids looked up do not outlive it.
    return Object.assign(handle, { prepare, persist, discard });
  },
};
