import type { ReadModelDialect } from '../../storage/dialect.ts';
import type { Sqlite } from '../../storage/sqlite/open.ts';
import { BALANCE_CREDIT_TYPES, BALANCE_DEBIT_TYPES, type DocumentType } from '../../events/documents.ts';
import { daysInMonth } from '../../lib/clock.ts';
import { type JoinedPage, joinedPageQuery } from '../joined-page.ts';
import type { DocumentRecord } from './records.ts';

/** `YYYY-MM` when the range is exactly the first to the last day of one month. */
function wholeMonth(from: string | undefined, to: string | undefined): string | undefined {
  if (from === undefined || to === undefined || !from.endsWith('-01') || from.slice(0, 7) !== to.slice(0, 7)) return undefined;
  const lastDay = daysInMonth(Number(from.slice(0, 4)), Number(from.slice(5, 7)));
  return to === `${from.slice(0, 8)}${String(lastDay).padStart(2, '0')}` ? from.slice(0, 7) : undefined;
}

/** A posted document as a contractor's balance sees it. */
export interface PostedDocument {
  type: DocumentType;
  id: number;
  number: string | null;
  sum: number;
  date: string;
}

/** What an auditor looks a document up by; every condition given must hold. */
export interface DocumentSearch extends DocumentFilter {
  type?: DocumentType;
  contractorId?: number;
  /** The document's number, exactly. */
  number?: string;
}

export interface DocumentFilter {
  dateFrom?: string;
  dateTo?: string;
  status?: number;
}

/**
 * The document lists, sorted by id. Unfiltered pages go by `position`, one whole month by its rank within the
 * month (`months.ts`): both are index range scans at any offset, and their counts one seek. Other
 * filters select the page's keys in id order from a covering index (type, status, id) / (type, month, id,
 * status) / (type, date, status, id) — OFFSET skips index entries, never rows — and fetch just those rows.
 */
export function documentQueries(db: Sqlite, dialect: ReadModelDialect) {
  // Positions are dense 1..n within a type, so the highest one is the count: one seek on (type, position).
  const byPosition = joinedPageQuery(
    db,
    dialect,
    'SELECT list_json AS json FROM documents WHERE type = @type AND position > @offset ORDER BY position LIMIT @limit',
    'SELECT coalesce((SELECT position FROM documents WHERE type = @type ORDER BY position DESC LIMIT 1), 0)',
  );
  // The keys come from a co-routine in id order and each joins its row by rowid, so the page keeps that order
  // without sorting the wide rows (a `key IN (…) ORDER BY id` sorted 50 list JSONs: twice the cost).
  const keyed = (index: string, where: string) =>
    joinedPageQuery(
      db,
      dialect,
      `SELECT d.list_json AS json FROM (SELECT key FROM ${dialect.indexHint('documents', index)} WHERE ${where} ORDER BY id LIMIT @limit OFFSET @offset) AS p
       JOIN documents d ON d.key = p.key`,
      `SELECT count(*) FROM ${dialect.indexHint('documents', index)} WHERE ${where}`,
    );
  const byStatus = keyed('documents_status', 'type = @type AND status = @status');
  // The index hint pins the covering indexes so the planner never picks a scan of the whole type in id order.
  const dated = keyed('documents_date', 'type = @type AND date BETWEEN @from AND @to');
  const datedStatus = keyed('documents_date', 'type = @type AND date BETWEEN @from AND @to AND status = @status');
  const monthStatus = keyed('documents_month', 'type = @type AND month = @month AND status = @status');
  const month = joinedPageQuery(
    db,
    dialect,
    `SELECT d.list_json AS json FROM document_months m JOIN documents d ON d.key = m.key
     WHERE m.type = @type AND m.month = @month AND m.rank > @offset ORDER BY m.rank LIMIT @limit`,
    'SELECT coalesce((SELECT rank FROM document_months WHERE type = @type AND month = @month ORDER BY rank DESC LIMIT 1), 0)',
  );
  const recordOf = db.prepare('SELECT record FROM document_records WHERE type = ? AND id = ?').pluck();
  const balanceTypes = [...BALANCE_CREDIT_TYPES, ...BALANCE_DEBIT_TYPES].map((t) => `'${t}'`).join(', ');
  // A contractor's posted documents from the covering (contractor_id, status, type, sum) index, each joined to its date.
  const posted = db.prepare(
    `SELECT r.type, r.id, r.number, r.sum, d.date FROM document_records r JOIN documents d ON d.key = r.key
     WHERE r.contractor_id = ? AND r.status = 1 AND r.type IN (${balanceTypes}) ORDER BY d.date, r.type, r.id`,
  );
  // Found through the (type, id) key of the records; the served row shares its key.
  const listJsonOf = db.prepare('SELECT d.list_json FROM document_records r JOIN documents d ON d.key = r.key WHERE r.type = ? AND r.id = ?').pluck();

  // One statement for each combination of conditions, prepared when first asked.
  const searches = new Map<string, ReturnType<Sqlite['prepare']>>();
  const childrenOf = db.prepare('SELECT child_type AS type, child_id AS id FROM document_links WHERE parent_type = ? AND parent_id = ? ORDER BY child_type, child_id');

  return {
    /**
     * The documents matching a search, newest date first, as the lists show them (JSON texts): a number, a
     * contractor and a type's dates each have an index.
     */
    search(by: DocumentSearch, offset: number, limit: number): string[] {
      const conditions: string[] = [];
      const params: Record<string, unknown> = { offset, limit };
      const where = (condition: string, name: string, value: unknown) => {
        if (value === undefined) return;
        conditions.push(condition);
        params[name] = value;
      };
      where('r.type = @type', 'type', by.type);
      where('r.contractor_id = @contractorId', 'contractorId', by.contractorId);
      where('r.status = @status', 'status', by.status);
      where('d.date >= @dateFrom', 'dateFrom', by.dateFrom);
      where('d.date <= @dateTo', 'dateTo', by.dateTo);
      where('r.number = @number', 'number', by.number);
      const filter = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
      const sql = `SELECT d.list_json FROM document_records r JOIN documents d ON d.key = r.key ${filter} ORDER BY d.date DESC, r.key DESC LIMIT @limit OFFSET @offset`;
      let statement = searches.get(sql);
      if (statement === undefined) searches.set(sql, (statement = db.prepare(sql).pluck()));
      return statement.all(params) as string[];
    },
    /** The documents made from this one (whose basedOn names it), by type and id. */
    childrenOf: (type: DocumentType, id: number) => childrenOf.all(type, id) as { type: DocumentType; id: number }[],
    page(type: DocumentType, filter: DocumentFilter, offset: number, limit: number): JoinedPage {
      const { dateFrom, dateTo, status } = filter;
      const paging = { type, limit, offset };
      if (dateFrom === undefined && dateTo === undefined) return status === undefined ? byPosition(paging) : byStatus({ ...paging, status });
      const whole = wholeMonth(dateFrom, dateTo);
      if (whole !== undefined) return status === undefined ? month({ ...paging, month: whole }) : monthStatus({ ...paging, month: whole, status });
      const range = { ...paging, from: dateFrom ?? '0000-01-01', to: dateTo ?? '9999-12-31' };
      return status === undefined ? dated(range) : datedStatus({ ...range, status });
    },
    /** A contractor's posted documents that move its balance, by date (then type and id): sums in kopecks. */
    postedOfContractor: (contractorId: number) => posted.all(contractorId) as PostedDocument[],
    /** One document as the lists show it (its JSON text), of any type; undefined when there is none. */
    listJson(type: DocumentType, id: number): string | undefined {
      return listJsonOf.get(type, id) as string | undefined;
    },
    byId(type: DocumentType, id: number): DocumentRecord | undefined {
      const json = recordOf.get(type, id) as string | undefined;
      return json === undefined ? undefined : JSON.parse(json);
    },
  };
}
