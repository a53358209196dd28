import type { Sqlite } from '../../storage/sqlite/open.ts';
import type { ContractorRecord } from '../../events/contractors.ts';
import type { DocumentFields, DocumentRef, DocumentType } from '../../events/documents.ts';
import { denseRank } from '../dense-rank.ts';
import type { TableNames } from '../projector.ts';

/**
 * What events write about a document, at once (commands and the other projections read it while events are
 * applied): its row in `document_records` (the record, status, number, sum, bonus and its position among its type's
 * documents) and its links to the documents it is based on.
 */

/** A document's own state as its events left it; the derived figures live in their own columns. */
export interface DocumentRecord {
  fields: DocumentFields;
  status: number;
  basedOn: DocumentRef[];
}

/** A document's row as the projector reads it back. */
export interface DocumentRow {
  key: number;
  type: DocumentType;
  id: number;
  position: number;
  record: string;
  bonusPercent: number | null;
}

/** A document as one event left it: its key, its record before (none when the event recorded it) and after. */
export interface WrittenDocument {
  key: number;
  before: DocumentRecord | undefined;
  doc: DocumentRecord;
}

/** Contractors' bonus percents kept at once (a few dozen bytes each). */
const CONTRACTORS_KEPT = 20_000;

export function bindDocumentRecords(db: Sqlite, n: TableNames, contractor: (id: number) => ContractorRecord | undefined) {
  const columns = `key, type, id, position, record, bonus_percent AS bonusPercent FROM ${n('document_records')}`;
  const row = db.prepare(`SELECT ${columns} WHERE type = ? AND id = ?`);
  const rowByKey = db.prepare(`SELECT ${columns} WHERE key = ?`);
  const childRows = db.prepare(
    `SELECT r.key, r.type, r.id, r.position, r.record, r.bonus_percent AS bonusPercent
     FROM ${n('document_links')} l JOIN ${n('document_records')} r ON r.type = l.child_type AND r.id = l.child_id
     WHERE l.parent_type = ? AND l.parent_id = ?`,
  );
  // The served rows keep the records' positions.
  const positions = denseRank(db, { table: n('document_records'), rank: 'position', partition: ['type'], copies: [n('documents')], rememberHighest: true });
  const insert = db.prepare(
    `INSERT INTO ${n('document_records')} (type, id, position, status, contractor_id, number, sum, bonus_percent, bonus_accrual, record)
     VALUES (@type, @id, @position, @status, @contractorId, @number, @sum, @bonusPercent, @accrual, @record)`,
  );
  const update = db.prepare(
    `UPDATE ${n('document_records')} SET status = @status, contractor_id = @contractorId, number = @number, sum = @sum, bonus_accrual = @accrual, record = @record
     WHERE key = @key`,
  );
  const dropLinks = db.prepare(`DELETE FROM ${n('document_links')} WHERE child_type = ? AND child_id = ?`);
  const addLink = db.prepare(`INSERT INTO ${n('document_links')} (child_type, child_id, parent_type, parent_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`);
  const ofContractor = db.prepare(`SELECT key FROM ${n('document_records')} WHERE contractor_id = ?`).pluck();

  const load = (type: DocumentType, id: number) => row.get(type, id) as DocumentRow | undefined;

  /**
   * Each contractor's bonus percent, null without an active programme: read and parsed once, not for every sale,
   * until an event changes the contractor (`forgetContractor`) or the flush ends (`forgetContractors`).
   */
  const bonusPercents = new Map<number, number | null>();
  const bonusPercentOf = (contractorId: number) => {
    let percent = bonusPercents.get(contractorId);
    if (percent === undefined) {
      const bonus = contractor(contractorId)?.bonus;
      percent = bonus?.status === 1 ? (bonus.percent ?? 0) : null;
      if (bonusPercents.size >= CONTRACTORS_KEPT) bonusPercents.clear();
      bonusPercents.set(contractorId, percent);
    }
    return percent;
  };

  /** Writes the record `next` makes of the document's current one (none when it is new), and its links when they changed. */
  const write = (type: DocumentType, id: number, next: (current: DocumentRecord | undefined) => DocumentRecord): WrittenDocument => {
    const { existing: current, rank: position } = positions.place([type], id, () => load(type, id));
    const before = current ? (JSON.parse(current.record) as DocumentRecord) : undefined;
    let key = current?.key;
    const doc = next(before);
    const columns = { status: doc.status, contractorId: doc.fields.contractorId, number: doc.fields.number, sum: doc.fields.sum, record: JSON.stringify(doc) };
    const accrual = (percent: number | null) => (percent === null ? 0 : Math.round((doc.fields.sum * percent) / 100));
    if (current) {
      update.run({ ...columns, key: current.key, accrual: accrual(current.bonusPercent) });
    } else {
      // A sale earns bonus at the percent of the contractor's programme as it is when the sale is recorded.
      const bonusPercent = type === 'sale' ? bonusPercentOf(doc.fields.contractorId) : null;
      key = insert.run({ ...columns, type, id, position, bonusPercent, accrual: accrual(bonusPercent) }).lastInsertRowid as number;
    }
    if (!before || JSON.stringify(before.basedOn) !== JSON.stringify(doc.basedOn)) {
      // A document recorded now has no links to drop: they are written with its record.
      if (before) dropLinks.run(type, id);
      for (const p of doc.basedOn) addLink.run(type, id, p.type, p.id);
    }
    return { key: key!, before, doc };
  };

  return {
    load,
    byKey: (key: number) => rowByKey.get(key) as DocumentRow,
    /** The rows of the documents based on this one (a child's link is written with its record). */
    children: (type: DocumentType, id: number) => childRows.all(type, id) as DocumentRow[],
    write,
    /** The keys of a contractor's documents. */
    keysOfContractor: (contractorId: number) => ofContractor.all(contractorId) as number[],
    /** Forgets each type's highest document kept by the positions (before the transaction ends). */
    forgetHighest: positions.forget,
    forgetContractor: (contractorId: number) => bonusPercents.delete(contractorId),
    forgetContractors: () => bonusPercents.clear(),
  };
}

export type DocumentRecords = ReturnType<typeof bindDocumentRecords>;
