import { type SqlSession, byCount } from '../../storage/sql.ts';
import type { DocumentType } from '../../events/documents.ts';
import type { StoredEvent } from '../../events/rows.ts';
import { denseRank } from '../dense-rank.ts';
import { rowsKeptBack } from '../rows-kept-back.ts';
import type { Projector, TableNames } from '../projector.ts';

/**
 * Each document's dense rank in id order among its type's documents of the same calendar month (`YYYY-MM` of
 * its date). A one-month list (what clients ask for most: "this month's shipments") is then paged like the
 * unfiltered lists: a page at any offset is an index range scan on (type, month, rank), each row joined from
 * `documents` by its key, and the month's count is its highest rank, one seek. Counting or skipping the
 * month's index entries instead cost O(month) per request.
 */
export const documentMonthsProjector: Projector = {
  name: 'document_months',
  version: 2,
  // Reads the key of the document the same event records.
  after: ['documents'],
  tables: ['document_months'],
  schema: (n, { types: t, clusteredTableSuffix }) => [
    `CREATE TABLE ${n('document_months')} (
       type ${t.text} NOT NULL, id ${t.integer} NOT NULL, key ${t.integer} NOT NULL, month ${t.text} NOT NULL, rank ${t.integer} NOT NULL,
       PRIMARY KEY (type, id))${clusteredTableSuffix}`,
    // Covering for a page: the key of each rank is read from the index, not from the table (30 of a 50-row
    // page's 90 µs went to those lookups).
    `CREATE INDEX ${n('document_months_rank')} ON ${n('document_months')} (type, month, rank, key)`,
  ],
  // The rank index is read by the projector itself (the month's last rank), so it is in the schema.
  readIndexes: () => [],
  bind(session: SqlSession, n: TableNames) {
    const monthOf = `SELECT month FROM ${n('document_months')} WHERE type = ? AND id = ?`;
    const highestId = `SELECT max(id) FROM ${n('document_months')} WHERE type = ?`;
    // The rank index finds a month's last document; the key (type, id) does not lead with the month.
    const ranks = denseRank(session, { table: n('document_months'), rank: 'rank', partition: ['type', 'month'], highestBy: 'rank', rememberHighest: true });
    // The documents projector runs first (`after`) and writes the documents it keeps back first: the document's
    // record, and so its key, exist when its row goes in.
    const insert = byCount(
      (rows) =>
        `INSERT INTO ${n('document_months')} (type, id, key, month, rank)
         VALUES ${Array(rows).fill(`(?, ?, (SELECT key FROM ${n('document_records')} WHERE type = ? AND id = ?), ?, ?)`).join(', ')}`,
    );
    const remove = `DELETE FROM ${n('document_months')} WHERE type = ? AND id = ?`;

    /**
     * Rows of documents above their type's highest id wait here and go a hundred a statement, as the documents
     * projector keeps back the same documents' records: before this projector reads or moves its rows, and at
     * `persist` (after the documents projector's).
     */
    const added = rowsKeptBack(session, insert);

    /** Each type's highest id as `place` left it: a document above it is new to the table, with no month to look up. */
    const highestIds = new Map<DocumentType, number>();
    const place = async (type: DocumentType, id: number, date: string) => {
      const month = date.slice(0, 7);
      const highest = highestIds.get(type) ?? (await session.value<number | null>(highestId, [type])) ?? 0;
      // Above every id of its type, a document is above every id of its month too: it takes the next rank.
      const appended = id > highest ? await ranks.append([type, month], id) : undefined;
      if (appended !== undefined) {
        highestIds.set(type, id);
        added.add([type, id, type, id, month, appended]);
        return;
      }
      await added.write();
      const current = await session.value<string>(monthOf, [type, id]);
      if (current === month) return; // applying the same event twice changes nothing
      if (current !== undefined) {
        await session.run(remove, [type, id]);
        await ranks.closeGap([type, current], id);
      }
      highestIds.set(type, Math.max(highest, id));
      // Not in this month yet: a document dated into a month that already holds higher ids moves those down.
      const { rank } = await ranks.place([type, month], id, async () => undefined);
      await session.run(insert(1), [type, id, type, id, month, rank]);
    };
    const forget = () => {
      added.discard();
      ranks.forget();
      highestIds.clear();
    };
    const persist = async () => {
      await added.write();
      forget();
    };

    const handle = (event: StoredEvent) => {
      if (event.type === 'DocumentRecorded') return place(event.data.docType, event.data.id, event.data.fields.date);
      if (event.type === 'DocumentRevised' && event.data.changes.date !== undefined) return place(event.data.docType, event.data.id, event.data.changes.date);
    };
    // `persist` comes at the end of every apply and replayed chunk, inside its transaction: the rows kept back, the
    // highest ids and the months' highest ranks do not outlive it.
    return Object.assign(handle, { persist, discard: forget });
  },
};
