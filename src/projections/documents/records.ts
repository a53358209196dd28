import { ROWS_PER_STATEMENT, type SqlSession, byCount, inChunks, placeholders, valueList } from '../../storage/sql.ts';
import type { ContractorRecord } from '../../records/contractor/events.ts';
import type { DocumentRecord, DocumentRef, DocumentType } from '../../records/document/events.ts';
import type { StoredEvent } from '../../events/rows.ts';
import type { PartitionColumn } from '../id-counts.ts';
import { rowsKeptBack } from '../rows-kept-back.ts';
import type { TableNames } from '../projector.ts';
import type { WriteStrategy } from '../write-strategies.ts';

/**
 * What events write about a document, at once (commands and the other projections read it while events are
 * applied): its row in `document_records` (the record, status, number, sum, bonus), the count of its type's ids it
 * adds to (`document_id_counts`) and its links to the documents it is based on.
 */

/** A document's row as the projector reads it back. */
export interface DocumentRow {
  key: number;
  type: DocumentType;
  id: number;
  record: string;
  bonusPercent: number | null;
}

/** A link from a document to one it is based on. */
export interface Link {
  child: DocumentRef;
  parent: DocumentRef;
}

/** A document as one event left it: its key, its record before (none when the event recorded it) and after. */
export interface WrittenDocument {
  key: number;
  before: DocumentRecord | undefined;
  doc: DocumentRecord;
}

/** The bonus a sale of `sum` earns at `percent` (none without a programme). */
const accrual = (sum: number, percent: number | null) => (percent === null ? 0 : Math.round((sum * percent) / 100));

/** Documents' ids are counted per type. */
export const TYPE_PARTITION: PartitionColumn[] = [{ name: 'type', type: 'text' }];

/** Contractors' bonus percents kept at once (a few dozen bytes each). */
const CONTRACTORS_KEPT = 20_000;

/** A document number as a search compares it, whatever its case. */
export const numberKey = (number: string | null) => (number === null ? null : number.toLowerCase().replaceAll('ё', 'е'));

/** A document number's digits alone, without leading zeros (`SA-000001` → `1`); null when it has none. */
export function numberDigits(number: string | null): string | null {
  const digits = number?.replace(/\D/g, '').replace(/^0+(?=\d)/, '');
  return digits === undefined || digits === '' ? null : digits;
}

export function bindDocumentRecords(session: SqlSession, n: TableNames, contractor: (id: number) => Promise<ContractorRecord | undefined>, strategy: WriteStrategy) {
  const columns = `key, type, id, record, bonus_percent AS "bonusPercent" FROM ${n('document_records')}`;
  const row = `SELECT ${columns} WHERE type = ? AND id = ?`;
  const rowByKey = `SELECT ${columns} WHERE key = ?`;
  const rowsAfter = `SELECT ${columns} WHERE key > ? ORDER BY key LIMIT ?`;
  const rowsByKey = byCount((count) => `SELECT ${columns} WHERE key IN (${valueList(count)})`);
  const wanted = (count: number) => `WITH wanted (type, id) AS (VALUES ${session.dialect.typedRows(count, ['text', 'integer'])})`;
  const rowsOf = byCount(
    (count) =>
      `${wanted(count)} SELECT r.key, r.type, r.id, r.record, r.bonus_percent AS "bonusPercent"
       FROM wanted w JOIN ${n('document_records')} r ON r.type = w.type AND r.id = w.id`,
  );
  const childLinksOf = byCount(
    (count) =>
      `${wanted(count)} SELECT l.parent_type AS "parentType", l.parent_id AS "parentId", l.child_type AS "childType", l.child_id AS "childId"
       FROM wanted w JOIN ${n('document_links')} l ON l.parent_type = w.type AND l.parent_id = w.id`,
  );
  const counts = strategy.counts(session, n('document_id_counts'), TYPE_PARTITION);
  const known = strategy.ids(session, n('document_records'), ['type']);
  // The key a new document takes: every engine gives a document the same key (`numbers.ts`).
  const keys = strategy.numbers(session, n('document_records'), 'key');
  const insert = byCount(
    (rows) =>
      `INSERT INTO ${n('document_records')} (key, type, id, status, contractor_id, number, number_key, number_digits, sum, bonus_percent, bonus_accrual, record)
       VALUES ${placeholders(rows, 12)}`,
  );
  const update = `UPDATE ${n('document_records')} SET status = ?, contractor_id = ?, number = ?, number_key = ?, number_digits = ?, sum = ?, bonus_accrual = ?, record = ? WHERE key = ?`;
  const dropLinks = `DELETE FROM ${n('document_links')} WHERE child_type = ? AND child_id = ?`;
  const addLinks = byCount(
    (rows) => `INSERT INTO ${n('document_links')} (child_type, child_id, parent_type, parent_id) VALUES ${placeholders(rows, 4)} ON CONFLICT DO NOTHING`,
  );
  const ofContractor = `SELECT key FROM ${n('document_records')} WHERE contractor_id = ?`;

  /**
   * New documents (in any id order), with their links, wait here and go a hundred a statement: every read of the
   * tables and every other write writes them first, and `persist` at the end of every apply and replayed chunk.
   */
  const added = rowsKeptBack(session, insert);
  const addedLinks = rowsKeptBack(session, addLinks);
  const writeAdded = async () => {
    await added.write();
    await addedLinks.write();
  };
  /** `read` after the documents kept back are written. */
  const afterAdded =
    <A extends unknown[], R>(read: (...args: A) => Promise<R>) =>
    async (...args: A) => {
      await writeAdded();
      return read(...args);
    };

  const load = afterAdded(async (type: DocumentType, id: number) => (await session.objects<DocumentRow>(row, [type, id]))[0]);

  /** The rows a statement per hundred items reads for `items` (the ones found, in no particular order). */
  const readMany = async <T, R extends object>(items: T[], text: (count: number) => string, params: (item: T) => unknown[]) => {
    const found: R[] = [];
    await inChunks(items, async (chunk) => {
      found.push(...(await session.objects<R>(text(chunk.length), chunk.flatMap(params))));
    });
    return found;
  };

  /**
   * Each contractor's bonus percent, null without an active programme: kept from the events that set the programme
   * (a contractor's events come before its sales), else (live) read and parsed once, not for every sale, until the
   * flush ends (`forgetContractors`).
   */
  const percentOf = (bonus: ContractorRecord['bonus'] | undefined) => (bonus?.status === 1 ? (bonus.percent ?? 0) : null);
  const bonusPercents = strategy.kept(async (id) => percentOf((await contractor(id))?.bonus), null, CONTRACTORS_KEPT);

  /** A new document's row and links, kept back. */
  const add = async (type: DocumentType, id: number, doc: DocumentRecord): Promise<WrittenDocument> => {
    const { contractorId, number, sum } = doc.fields;
    // A sale earns bonus at the percent of the contractor's programme as it is when the sale is recorded.
    const bonusPercent = type === 'sale' ? await bonusPercents.get(contractorId) : null;
    const next = keys.next();
    const key = typeof next === 'number' ? next : await next;
    added.add([key, type, id, doc.status, contractorId, number, numberKey(number), numberDigits(number), sum, bonusPercent, accrual(sum, bonusPercent), JSON.stringify(doc)]);
    for (const p of doc.basedOn) addedLinks.add([type, id, p.type, p.id]);
    known.add([type], id);
    counts.add([type], id);
    // Written a statement's worth at a time: a transaction's documents kept back outlived the young generation (a
    // scavenge copies what is alive).
    if (added.size() >= ROWS_PER_STATEMENT) await writeAdded();
    return { key, before: undefined, doc };
  };

  /** Writes the record `next` makes of the document's current one (none when it is new), and its links when they changed. */
  const write = async (type: DocumentType, id: number, next: (current: DocumentRecord | undefined) => DocumentRecord): Promise<WrittenDocument> => {
    if (await known.isNew([type], id)) return add(type, id, next(undefined));
    const current = (await load(type, id))!;
    const before = JSON.parse(current.record) as DocumentRecord;
    const doc = next(before);
    const { contractorId, number, sum } = doc.fields;
    await session.run(update, [doc.status, contractorId, number, numberKey(number), numberDigits(number), sum, accrual(sum, current.bonusPercent), JSON.stringify(doc), current.key]);
    if (JSON.stringify(before.basedOn) !== JSON.stringify(doc.basedOn)) {
      await session.run(dropLinks, [type, id]);
      for (const p of doc.basedOn) addedLinks.add([type, id, p.type, p.id]);
      await addedLinks.write();
    }
    return { key: current.key, before, doc };
  };

  return {
    load,
    byKey: afterAdded(async (key: number) => (await session.objects<DocumentRow>(rowByKey, [key]))[0]),
    /** The rows of the documents with these keys (those that exist). */
    byKeys: afterAdded((keys: number[]) => readMany<number, DocumentRow>(keys, rowsByKey, (key) => [key])),
    /** The rows after the key `after`, at most `limit`, in key order. */
    after: afterAdded((after: number, limit: number) => session.objects<DocumentRow>(rowsAfter, [after, limit])),
    /** The rows of these documents (those that exist). */
    loadAll: afterAdded((refs: DocumentRef[]) => readMany<DocumentRef, DocumentRow>(refs, rowsOf, (r) => [r.type, r.id])),
    /** The links of the documents based on any of these (a child's links are written with its record). */
    childLinksOf: afterAdded(async (parents: DocumentRef[]): Promise<Link[]> => {
      type LinkRow = { parentType: DocumentType; parentId: number; childType: DocumentType; childId: number };
      const rows = await readMany<DocumentRef, LinkRow>(parents, childLinksOf, (p) => [p.type, p.id]);
      return rows.map((r) => ({ parent: { type: r.parentType, id: r.parentId }, child: { type: r.childType, id: r.childId } }));
    }),
    write,
    /** Looks up at once which of a batch's recorded documents exist already (see `newIds`). */
    lookUp: (events: readonly StoredEvent[]) =>
      known.lookUp(events.flatMap((e) => (e.type === 'DocumentRecorded' ? [[[e.data.docType], e.data.id] as const] : []))),
    /** The keys of a contractor's documents. */
    keysOfContractor: afterAdded(async (contractorId: number) => (await session.rows<[number]>(ofContractor, [contractorId])).map(([key]) => key)),
    /** Writes the documents kept back and the counts, and forgets what `newIds` looked up and (live) the next key, before the transaction ends. */
    persist: async () => {
      await writeAdded();
      await counts.persist();
      known.forget();
      keys.forget();
    },
    /** Forgets the documents kept back, each type's highest document and the next key (the transaction is rolled back). */
    discard: () => {
      added.discard();
      addedLinks.discard();
      counts.discard();
      known.forget();
      keys.forget();
    },
    /** A contractor was added or edited; `bonus` is its programme when the event set it (the contractor's now). */
    contractorChanged: (contractorId: number, bonus: ContractorRecord['bonus'] | undefined) => {
      if (bonus !== undefined) bonusPercents.set(contractorId, percentOf(bonus));
    },
    forgetContractors: () => bonusPercents.forget(),
  };
}

export type DocumentRecords = ReturnType<typeof bindDocumentRecords>;
