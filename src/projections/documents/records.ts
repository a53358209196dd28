import { ROWS_PER_STATEMENT, type SqlSession, byCount, inChunks, valueList } from '../../storage/sql.ts';
import type { ContractorRecord } from '../../records/contractor/events.ts';
import type { DocumentRecord, DocumentRef, DocumentType } from '../../records/document/events.ts';
import type { StoredEvent } from '../../events/rows.ts';
import type { PartitionColumn } from '../id-counts.ts';
import { insertInto, rowsKeptBack, rowsKeptByKey } from '../rows-kept-back.ts';
import { type ChildRowsWriter, childRowsWriter } from '../child-rows.ts';
import type { ChildRows } from '../read-model.ts';
import type { TableNames } from '../projector.ts';
import type { IdCounts, NewIds, Numbers, WriteStrategy } from '../write-strategies.ts';
import type { KeptValues } from '../kept-values.ts';

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

/** A document as its links are derived from it. */
interface DocumentAt {
  type: DocumentType;
  id: number;
  doc: DocumentRecord;
}

/** A document's links, one to each document it is based on, keyed by the document (the link's child). */
const LINKS: ChildRows<DocumentAt> = {
  table: 'document_links',
  parent: ['child_type', 'child_id'],
  columns: { child_type: 'text', child_id: 'integer', parent_type: 'text', parent_id: 'integer' },
  parentKey: ({ type, id }) => [type, id],
  rows: ({ type, id, doc }) => doc.basedOn.map((p) => [type, id, p.type, p.id]),
};

/** The columns of `document_records`, in the order of a row's values, the key first. */
const RECORD_COLUMNS = ['key', 'type', 'id', 'status', 'contractor_id', 'number', 'number_key', 'number_digits', 'sum', 'bonus_percent', 'bonus_accrual', 'record'];

/** Those an event rewrites: a document keeps its key, address and the bonus percent of when it was recorded. */
const RECORD_CHANGES = ['status', 'contractor_id', 'number', 'number_key', 'number_digits', 'sum', 'bonus_accrual', 'record'];

/** A document's row in `document_records` (`RECORD_COLUMNS`). */
function recordRow(key: number, type: DocumentType, id: number, doc: DocumentRecord, bonusPercent: number | null): unknown[] {
  const { contractorId, number, sum } = doc.fields;
  return [key, type, id, doc.status, contractorId, number, numberKey(number), numberDigits(number), sum, bonusPercent, accrual(sum, bonusPercent), JSON.stringify(doc)];
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

/** The statements of the records, the links and a contractor's documents, every table named through `n`. */
function recordStatements(session: SqlSession, n: TableNames) {
  const columns = `key, type, id, record, bonus_percent AS "bonusPercent" FROM ${n('document_records')}`;
  const wanted = (count: number) => `WITH wanted (type, id) AS (VALUES ${session.dialect.typedRows(count, ['text', 'integer'])})`;
  return {
    row: `SELECT ${columns} WHERE type = ? AND id = ?`,
    rowByKey: `SELECT ${columns} WHERE key = ?`,
    rowsAfter: `SELECT ${columns} WHERE key > ? ORDER BY key LIMIT ?`,
    rowsByKey: byCount((count) => `SELECT ${columns} WHERE key IN (${valueList(count)})`),
    rowsOf: byCount(
      (count) =>
        `${wanted(count)} SELECT r.key, r.type, r.id, r.record, r.bonus_percent AS "bonusPercent"
         FROM wanted w JOIN ${n('document_records')} r ON r.type = w.type AND r.id = w.id`,
    ),
    childLinksOf: byCount(
      (count) =>
        `${wanted(count)} SELECT l.parent_type AS "parentType", l.parent_id AS "parentId", l.child_type AS "childType", l.child_id AS "childId"
         FROM wanted w JOIN ${n('document_links')} l ON l.parent_type = w.type AND l.parent_id = w.id`,
    ),
    ofContractor: `SELECT key FROM ${n('document_records')} WHERE contractor_id = ?`,
  };
}

/** A contractor's bonus percent, null without an active programme. */
const percentOf = (bonus: ContractorRecord['bonus'] | undefined) => (bonus?.status === 1 ? (bonus.percent ?? 0) : null);

/**
 * The document records, their id counts and links, written as events come. The rows of new documents (in any id
 * order) are kept back and inserted, those of changed ones kept back by key (a document read by its address while
 * kept is answered from them) and upserted, a hundred a statement, with the links kept back: every other read of
 * the tables writes them first, and `persist` at the end of every apply and replayed chunk. New rows are not
 * upserted: a rebuild, which adds every document and changes few, measured ~7 % more CPU so.
 */
export class DocumentRecords {
  private readonly sql: ReturnType<typeof recordStatements>;
  private readonly counts: IdCounts;
  private readonly known: NewIds;
  /** The key a new document takes: every engine gives a document the same key (`numbers.ts`). */
  private readonly keys: Numbers;
  /** Rows of new documents not written yet (`RECORD_COLUMNS`). */
  private readonly added: ReturnType<typeof rowsKeptBack>;
  /** Rows of changed documents not written yet, by key. */
  private readonly changed: ReturnType<typeof rowsKeptByKey>;
  /** The keys of the changed documents kept, by address (`type:id`). */
  private readonly changedKeys = new Map<string, number>();
  private readonly links: ChildRowsWriter<DocumentAt>;
  /**
   * Each contractor's bonus percent: kept from the events that set the programme (a contractor's events come
   * before its sales), else (live) read and parsed once, not for every sale, until the flush ends (`forgetContractors`).
   */
  private readonly bonusPercents: KeptValues<number | null>;

  constructor(
    private readonly session: SqlSession,
    n: TableNames,
    contractor: (id: number) => Promise<ContractorRecord | undefined>,
    strategy: WriteStrategy,
  ) {
    this.sql = recordStatements(session, n);
    this.counts = strategy.counts(session, n('document_id_counts'), TYPE_PARTITION);
    this.known = strategy.ids(session, n('document_records'), ['type']);
    this.keys = strategy.numbers(session, n('document_records'), 'key');
    this.added = rowsKeptBack(session, insertInto(n('document_records'), RECORD_COLUMNS));
    this.changed = rowsKeptByKey(session, n('document_records'), RECORD_COLUMNS, RECORD_CHANGES);
    this.links = childRowsWriter(session, n, LINKS, strategy);
    this.bonusPercents = strategy.kept(async (id) => percentOf((await contractor(id))?.bonus), null, CONTRACTORS_KEPT);
  }

  private async writeKept(): Promise<void> {
    await this.added.write();
    await this.changed.write();
    this.changedKeys.clear();
    await this.links.write();
  }

  /** Keeps a changed document's row back, and writes those kept when a statement's worth is. */
  private async keepChanged(row: unknown[]): Promise<void> {
    this.changedKeys.set(`${row[1] as string}:${row[2] as number}`, row[0] as number);
    if (this.changed.set(row)) await this.writeKept();
  }

  /** The rows a statement per hundred items reads for `items` (the ones found, in no particular order), after the documents kept back are written. */
  private async readMany<T, R extends object>(items: T[], text: (count: number) => string, params: (item: T) => unknown[]): Promise<R[]> {
    await this.writeKept();
    const found: R[] = [];
    await inChunks(items, async (chunk) => {
      found.push(...(await this.session.objects<R>(text(chunk.length), chunk.flatMap(params))));
    });
    return found;
  }

  async load(type: DocumentType, id: number): Promise<DocumentRow | undefined> {
    const key = this.changedKeys.get(`${type}:${id}`);
    if (key !== undefined) {
      const row = this.changed.get(key)!;
      return { key, type, id, record: row[11] as string, bonusPercent: row[9] as number | null };
    }
    // A new one kept back is written first; a changed one not kept is written as it is now.
    await this.added.write();
    return (await this.session.objects<DocumentRow>(this.sql.row, [type, id]))[0];
  }

  async byKey(key: number): Promise<DocumentRow> {
    await this.writeKept();
    return (await this.session.objects<DocumentRow>(this.sql.rowByKey, [key]))[0];
  }

  /** The rows of the documents with these keys (those that exist). */
  byKeys(keys: number[]): Promise<DocumentRow[]> {
    return this.readMany<number, DocumentRow>(keys, this.sql.rowsByKey, (key) => [key]);
  }

  /** The rows after the key `after`, at most `limit`, in key order. */
  async after(after: number, limit: number): Promise<DocumentRow[]> {
    await this.writeKept();
    return this.session.objects<DocumentRow>(this.sql.rowsAfter, [after, limit]);
  }

  /** The rows of these documents (those that exist). */
  loadAll(refs: DocumentRef[]): Promise<DocumentRow[]> {
    return this.readMany<DocumentRef, DocumentRow>(refs, this.sql.rowsOf, (r) => [r.type, r.id]);
  }

  /** The links of the documents based on any of these (a child's links are written with its record). */
  async childLinksOf(parents: DocumentRef[]): Promise<Link[]> {
    type LinkRow = { parentType: DocumentType; parentId: number; childType: DocumentType; childId: number };
    const rows = await this.readMany<DocumentRef, LinkRow>(parents, this.sql.childLinksOf, (p) => [p.type, p.id]);
    return rows.map((r) => ({ parent: { type: r.parentType, id: r.parentId }, child: { type: r.childType, id: r.childId } }));
  }

  /** The keys of a contractor's documents. */
  async keysOfContractor(contractorId: number): Promise<number[]> {
    await this.writeKept();
    return (await this.session.rows<[number]>(this.sql.ofContractor, [contractorId])).map(([key]) => key);
  }

  /** Writes the record `next` makes of the document's current one (none when it is new), and its links when they changed. */
  async write(type: DocumentType, id: number, next: (current: DocumentRecord | undefined) => DocumentRecord): Promise<WrittenDocument> {
    if (await this.known.isNew([type], id)) return this.add(type, id, next(undefined));
    const current = (await this.load(type, id))!;
    const before = JSON.parse(current.record) as DocumentRecord;
    const doc = next(before);
    await this.keepChanged(recordRow(current.key, type, id, doc, current.bonusPercent));
    this.links.change({ type, id, doc: before }, { type, id, doc });
    return { key: current.key, before, doc };
  }

  /** A new document's row and links, kept back. */
  private async add(type: DocumentType, id: number, doc: DocumentRecord): Promise<WrittenDocument> {
    // A sale earns bonus at the percent of the contractor's programme as it is when the sale is recorded.
    const bonusPercent = type === 'sale' ? await this.bonusPercents.get(doc.fields.contractorId) : null;
    const next = this.keys.next();
    const key = typeof next === 'number' ? next : await next;
    this.links.add({ type, id, doc });
    this.known.add([type], id);
    this.counts.add([type], id);
    this.added.add(recordRow(key, type, id, doc, bonusPercent));
    // Written a statement's worth at a time: a transaction's documents kept back outlived the young generation (a
    // scavenge copies what is alive).
    if (this.added.size() >= ROWS_PER_STATEMENT) await this.writeKept();
    return { key, before: undefined, doc };
  }

  /** Looks up at once which of a batch's recorded documents exist already (see `newIds`). */
  lookUp(events: readonly StoredEvent[]): Promise<void> {
    return this.known.lookUp(events.flatMap((e) => (e.type === 'DocumentRecorded' ? [[[e.data.docType], e.data.id] as const] : [])));
  }

  /** Writes the documents kept back and the counts, and forgets what `newIds` looked up and (live) the next key, before the transaction ends. */
  async persist(): Promise<void> {
    await this.writeKept();
    await this.counts.persist();
    this.known.forget();
    this.keys.forget();
  }

  /** Forgets the documents kept back, each type's highest document and the next key (the transaction is rolled back). */
  discard(): void {
    this.added.discard();
    this.changed.discard();
    this.changedKeys.clear();
    this.links.discard();
    this.counts.discard();
    this.known.forget();
    this.keys.forget();
  }

  /** A contractor was added or edited; `bonus` is its programme when the event set it (the contractor's now). */
  contractorChanged(contractorId: number, bonus: ContractorRecord['bonus'] | undefined): void {
    if (bonus !== undefined) this.bonusPercents.set(contractorId, percentOf(bonus));
  }

  forgetContractors(): void {
    this.bonusPercents.forget();
  }
}
