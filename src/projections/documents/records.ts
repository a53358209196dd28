import { type SqlSession, byCount, inChunks, valueList } from '../../storage/sql.ts';
import type { ContractorRecord } from '../../records/contractor/events.ts';
import type { DocumentRecord, DocumentRef, DocumentType } from '../../records/document/events.ts';
import { type DocumentEvent, evolveDocument } from '../../records/document/evolve.ts';
import type { StoredEvent } from '../../events/rows.ts';
import type { PartitionColumn } from '../id-counts.ts';
import type { ChildRows, RecordChanges, RecordReadModel } from '../read-model.ts';
import type { TableNames } from '../projector.ts';
import { SHOWN_CONTRACTOR_FIELDS } from './views.ts';

/**
 * What events write about a document, at once (commands and the other projections read it while events are
 * applied): its row in `document_records` (the record, status, number, sum, bonus), the count of its type's ids it
 * adds to (`document_id_counts`) and its links to the documents it is based on. Declared here, written by the
 * row writer (`row-writer.ts`); read here.
 */

/** A document as `document_records` holds it: its key (documents numbered as the log first records them), address, bonus percent and record. */
export interface DocumentRow {
  id: number;
  type: DocumentType;
  key: number;
  bonusPercent: number | null;
  doc: DocumentRecord;
}

/** A link from a document to one it is based on. */
export interface Link {
  child: DocumentRef;
  parent: DocumentRef;
}

/** A document's links, one to each document it is based on, keyed by the document (the link's child). */
const LINKS: ChildRows<DocumentRow> = {
  table: 'document_links',
  parent: ['child_type', 'child_id'],
  columns: { child_type: 'text', child_id: 'integer', parent_type: 'text', parent_id: 'integer' },
  parentKey: ({ type, id }) => [type, id],
  rows: ({ type, id, doc }) => doc.basedOn.map((p) => [type, id, p.type, p.id]),
};

/** A document's row in `document_records`, in the order of `stored`. */
function recordRow({ key, type, id, doc, bonusPercent }: DocumentRow): unknown[] {
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

/** A contractor's bonus percent, null without an active programme. */
const percentOf = (bonus: ContractorRecord['bonus'] | undefined) => (bonus?.status === 1 ? (bonus.percent ?? 0) : null);

/** A contractor added or edited: `bonus` is its programme when the event set it (the contractor's now). */
function keepPercent(documents: RecordChanges<DocumentRow>, contractorId: number, bonus: ContractorRecord['bonus'] | undefined): void {
  if (bonus !== undefined) documents.keep('bonusPercent', contractorId, percentOf(bonus));
}

/** A new document, numbered by the writer. */
async function record(event: Extract<StoredEvent, { type: 'DocumentRecorded' }>, documents: RecordChanges<DocumentRow>): Promise<void> {
  const { docType: type, id, fields } = event.data;
  // A sale earns bonus at the percent of the contractor's programme as it is when the sale is recorded.
  const bonusPercent = type === 'sale' ? ((await documents.kept('bonusPercent', fields.contractorId)) as number | null) : null;
  await documents.add({ id, type, key: 0, bonusPercent, doc: evolveDocument(() => undefined, event)! });
}

/** A document's record as the event leaves it; its key and bonus percent stay. */
function change(event: DocumentEvent, documents: RecordChanges<DocumentRow>): Promise<void> {
  const { docType: type, id } = event.data;
  const next = (current: DocumentRow | undefined) => {
    const doc = evolveDocument(() => current?.doc, event);
    if (current === undefined || doc === undefined) throw new Error(`${event.type} of ${type}-${id}, a document not recorded`);
    return { ...current, doc };
  };
  return documents.edit(id, next, [type]);
}

/** The columns a document is read back from, and how. */
const READ = { columns: ['id', 'type', 'key', 'bonus_percent', 'record'], record: ([id, type, key, bonusPercent, json]: unknown[]) => ({ id, type, key, bonusPercent, doc: JSON.parse(json as string) }) as DocumentRow };

/** A contractor edited: its bonus programme kept for its next sales, and its documents shown again when what they show of it changed. */
function contractorEdited(event: Extract<StoredEvent, { type: 'ContractorEdited' }>, documents: RecordChanges<DocumentRow>): Promise<void> | void {
  const { id, changes } = event.data;
  keepPercent(documents, id, changes.bonus);
  if (SHOWN_CONTRACTOR_FIELDS.some((field) => field in changes)) return documents.rerenderWhere('contractor_id', id, 'contractor');
}

/**
 * The documents' records as a declaration (the documents read model's records, `projector.ts`): one row a
 * document, keyed by its type and id and numbered by `key`, the table's primary key; its links; a sale's bonus
 * percent kept from the contractor's events.
 */
export const documentRecords: Pick<RecordReadModel<DocumentRow>, 'records' | 'children' | 'kept' | 'on' | 'adds' | 'addedKey'> = {
  records: {
    table: 'document_records',
    stored: {
      key: 'integer', type: 'text', id: 'integer', status: 'integer', contractor_id: 'integer', number: 'text', number_key: 'text',
      number_digits: 'text', sum: 'integer', bonus_percent: 'real', bonus_accrual: 'integer', record: 'text',
    },
    row: recordRow,
    read: READ,
    rendered: {},
    partition: { columns: ['type'], of: (d) => [d.type] },
    numbered: 'key',
    clusteredByNumber: true,
    givenOnce: ['bonusPercent'],
    pagedBy: 'document_id_counts',
    pagedWithin: { columns: TYPE_PARTITION, of: (d) => [d.type] },
  },
  children: [LINKS],
  kept: {
    // Kept from the contractor's events (they come before its sales), else (live) read and parsed once, not for every sale.
    bonusPercent: {
      table: 'contractors',
      column: 'record',
      value: (json) => percentOf(json === undefined ? undefined : (JSON.parse(json as string) as ContractorRecord).bonus),
      none: null,
      limit: CONTRACTORS_KEPT,
    },
  },
  on: {
    DocumentRecorded: record,
    DocumentRevised: change,
    DocumentPosted: change,
    DocumentUnposted: change,
    DocumentLinked: change,
    ContractorAdded: (event, documents) => keepPercent(documents, event.data.id, event.data.bonus),
    ContractorEdited: contractorEdited,
  },
  adds: ['DocumentRecorded'],
  addedKey: (event) => [[(event.data as { docType: DocumentType }).docType], (event.data as { id: number }).id],
};

/** The statements reading the records and links, every table named through `n`. */
function readStatements(session: SqlSession, n: TableNames) {
  const columns = `${READ.columns.join(', ')} FROM ${n('document_records')}`;
  const wanted = (count: number) => `WITH wanted (type, id) AS (VALUES ${session.dialect.typedRows(count, ['text', 'integer'])})`;
  return {
    rowsByKey: byCount((count) => `SELECT ${columns} WHERE key IN (${valueList(count)})`),
    rowsOf: byCount(
      (count) =>
        `${wanted(count)} SELECT ${READ.columns.map((c) => `r.${c}`).join(', ')}
         FROM wanted w JOIN ${n('document_records')} r ON r.type = w.type AND r.id = w.id`,
    ),
    childLinksOf: byCount(
      (count) =>
        `${wanted(count)} SELECT l.parent_type, l.parent_id, l.child_type, l.child_id
         FROM wanted w JOIN ${n('document_links')} l ON l.parent_type = w.type AND l.parent_id = w.id`,
    ),
  };
}

/** Reads of the records and links at the flush (everything kept back is written by then): a component walked through its links. */
export class DocumentReads {
  private readonly sql: ReturnType<typeof readStatements>;

  constructor(
    private readonly session: SqlSession,
    n: TableNames,
  ) {
    this.sql = readStatements(session, n);
  }

  /** The rows a statement per hundred items reads for `items` (the ones found, in no particular order). */
  private async readMany<T, R>(items: T[], text: (count: number) => string, params: (item: T) => unknown[], read: (values: unknown[]) => R): Promise<R[]> {
    const found: R[] = [];
    await inChunks(items, async (chunk) => {
      for (const values of await this.session.rows<unknown[]>(text(chunk.length), chunk.flatMap(params))) found.push(read(values));
    });
    return found;
  }

  /** The rows of the documents with these keys (those that exist). */
  byKeys(keys: number[]): Promise<DocumentRow[]> {
    return this.readMany(keys, this.sql.rowsByKey, (key) => [key], READ.record);
  }

  /** The rows of these documents (those that exist). */
  loadAll(refs: DocumentRef[]): Promise<DocumentRow[]> {
    return this.readMany(refs, this.sql.rowsOf, (r) => [r.type, r.id], READ.record);
  }

  /** The links of the documents based on any of these (a child's links are written with its record). */
  childLinksOf(parents: DocumentRef[]): Promise<Link[]> {
    const link = ([parentType, parentId, childType, childId]: unknown[]) =>
      ({ parent: { type: parentType, id: parentId }, child: { type: childType, id: childId } }) as Link;
    return this.readMany(parents, this.sql.childLinksOf, (p) => [p.type, p.id], link);
  }
}
