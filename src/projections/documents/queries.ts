import { type JoinedPage, type JoinedPageQuery, type SqlSession, byCount, inChunks, valueList } from '../../storage/sql.ts';
import type { ReadModelDialect } from '../../storage/dialect.ts';
import { BALANCE_CREDIT_TYPES, BALANCE_DEBIT_TYPES, type DocumentRecord, type DocumentRef, type DocumentType, isLineDocument } from '../../records/document/events.ts';
import { daysInMonth } from '../../lib/clock.ts';
import { idCount, idPage, pageLimit } from '../id-counts.ts';
import { MONTH_PARTITION } from './months.ts';
import { TYPE_PARTITION, numberDigits, numberKey } from './records.ts';

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

/** A contractor's posted documents as a statement reads them (`audit/statement.ts`), money in kopecks. */
export interface StatementReads {
  /** Around a period, in one reading: the balance the posted documents dated before it left, and how many are dated after it. */
  outside(contractorId: number, dateFrom: string, dateTo: string): Promise<{ opening: number; later: number }>;
  /** The keys of the first `limit` posted documents that move the balance within the period, in the statement's order. */
  postedKeys(contractorId: number, dateFrom: string, dateTo: string, limit: number): Promise<number[]>;
  /** The documents of these keys, in the keys' order; a key no longer there (a rebuild swapped the tables) is left out. */
  postedByKeys(keys: readonly number[]): Promise<PostedDocument[]>;
}

/** A document made from another (its `basedOn` names it), with its record (undefined when it has none). */
export interface ChildDocument extends DocumentRef {
  record: DocumentRecord | undefined;
}

/** What an auditor looks a document up by; every condition given must hold. */
export interface DocumentSearch extends DocumentFilter {
  type?: DocumentType;
  contractorId?: number;
  /** The document's number whatever its case, or (digits only) its digits without leading zeros: `000001` finds `SA-000001`. */
  number?: string;
}

/** Where a page of a search starts: after (older than) or before (newer than) this document. */
export interface SearchCursor extends DocumentRef {
  toward: 'older' | 'newer';
}

export interface DocumentFilter {
  dateFrom?: string;
  dateTo?: string;
  status?: number;
}

/** A document's place in the search's order: its date, then its key. */
export interface SearchPosition {
  date: string;
  key: number;
}

/**
 * The search's statement: newest first by (date, key), read on from a position in an index in that order (all
 * documents', one contractor's, or one type's) until the page is full, so a page costs the same at any depth; a number is
 * found by its own index and its few documents sorted.
 */
export function searchSql(dialect: Pick<ReadModelDialect, 'indexHint'>, by: DocumentSearch, limit: number, at?: SearchPosition & { toward: SearchCursor['toward'] }) {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const where = (condition: string, ...values: unknown[]) => {
    if (values[0] === undefined) return;
    conditions.push(condition);
    params.push(...values);
  };
  where('d.type = ?', by.type);
  where('d.contractor_id = ?', by.contractorId);
  where('d.status = ?', by.status);
  where('d.date >= ?', by.dateFrom);
  where('d.date <= ?', by.dateTo);
  const number = by.number?.trim();
  if (number !== undefined && /^\d+$/.test(number)) where('r.number_digits = ?', numberDigits(number));
  else where('r.number_key = ?', number === undefined ? undefined : numberKey(number));
  const newer = at?.toward === 'newer';
  if (at !== undefined) where(`(d.date, d.key) ${newer ? '>' : '<'} (?, ?)`, at.date, at.key);
  const documents =
    number !== undefined
      ? 'document_records r JOIN documents d ON d.key = r.key'
      : dialect.indexHint('documents AS d', by.contractorId !== undefined ? 'documents_contractor_newest' : by.type !== undefined ? 'documents_type_newest' : 'documents_newest');
  const order = newer ? 'ASC' : 'DESC';
  return {
    sql: `SELECT d.list_json FROM ${documents} ${conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`} ORDER BY d.date ${order}, d.key ${order} LIMIT ?`,
    params: [...params, limit],
  };
}

/** The documents of goods that move a balance (shipments, purchases, returns): a statement lists them before a day's payments. */
const LINE_BALANCE_TYPES = [...BALANCE_CREDIT_TYPES, ...BALANCE_DEBIT_TYPES].filter(isLineDocument);

/** Document types as an SQL list of literals. */
const typeList = (types: readonly DocumentType[]) => types.map((t) => `'${t}'`).join(', ');

/**
 * The document lists, sorted by id. Unfiltered pages, and one whole month's (`months.ts`), find their first id from
 * the counts of ids in nested ranges (`id-counts.ts`) and read on in id order: the same work at any offset, and
 * their counts one seek. Other
 * filters select the page's keys in id order from a covering index (type, status, id) / (type, month, id,
 * status) / (type, date, status, id) — OFFSET skips index entries, never rows — and fetch just those rows.
 */
function listPageQueries(dialect: SqlSession['dialect']) {
  const typePaging = { rows: 'documents', counts: 'document_id_counts', partition: TYPE_PARTITION };
  const monthPaging = { rows: 'document_months', counts: 'document_month_id_counts', partition: MONTH_PARTITION };
  // The keys come from a co-routine in id order and each joins its row by rowid, so the page keeps that order
  // without sorting the wide rows (a `key IN (…) ORDER BY id` sorted 50 list JSONs: twice the cost); SQLite sees
  // that the outer ORDER BY is met already and sorts nothing. PostgreSQL may hash the join, which keeps no order:
  // the outer ORDER BY is what puts its page in id order.
  const keyed = (index: string, where: string) => ({
    select: `SELECT d.list_json AS json FROM (SELECT key, id FROM ${dialect.indexHint('documents', index)} WHERE ${where} ORDER BY id LIMIT ? OFFSET ?) AS p
       JOIN documents d ON d.key = p.key ORDER BY p.id`,
    allCount: `SELECT count(*) FROM ${dialect.indexHint('documents', index)} WHERE ${where}`,
  });
  return {
    byId: {
      select: idPage(dialect, typePaging, 'SELECT id, list_json AS json FROM documents WHERE type = ? AND id >= (SELECT id FROM first_id) ORDER BY id'),
      allCount: idCount(typePaging),
    },
    byStatus: keyed('documents_status', 'type = ? AND status = ?'),
    // The index hint pins the covering indexes so the planner never picks a scan of the whole type in id order.
    dated: keyed('documents_date', 'type = ? AND date BETWEEN ? AND ?'),
    datedStatus: keyed('documents_date', 'type = ? AND date BETWEEN ? AND ? AND status = ?'),
    monthStatus: keyed('documents_month', 'type = ? AND month = ? AND status = ?'),
    month: {
      select: idPage(
        dialect,
        monthPaging,
        `SELECT m.id, d.list_json AS json FROM document_months m JOIN documents d ON d.key = m.key
         WHERE m.type = ? AND m.month = ? AND m.id >= (SELECT id FROM first_id) ORDER BY m.id`,
      ),
      allCount: idCount(monthPaging),
    },
  };
}

/** A page of a type's documents, filtered by date and status. */
function listPages(session: SqlSession) {
  const q = listPageQueries(session.dialect);
  /** A page of a `keyed` query: its conditions' values, then the page's. */
  const keyedPage = (query: JoinedPageQuery, where: unknown[], offset: number, limit: number) =>
    session.joinedPage(query, { select: [...where, limit, offset], allCount: where });
  return (type: DocumentType, filter: DocumentFilter, offset: number, limit: number): Promise<JoinedPage> => {
    const { dateFrom, dateTo, status } = filter;
    if (dateFrom === undefined && dateTo === undefined) {
      if (status === undefined) return session.joinedPage(q.byId, { select: [type, offset, type, pageLimit(limit)], allCount: [type] });
      return keyedPage(q.byStatus, [type, status], offset, limit);
    }
    const whole = wholeMonth(dateFrom, dateTo);
    if (whole !== undefined) {
      if (status === undefined) return session.joinedPage(q.month, { select: [type, whole, offset, type, whole, pageLimit(limit)], allCount: [type, whole] });
      return keyedPage(q.monthStatus, [type, whole, status], offset, limit);
    }
    const range = [type, dateFrom ?? '0000-01-01', dateTo ?? '9999-12-31'];
    return status === undefined ? keyedPage(q.dated, range, offset, limit) : keyedPage(q.datedStatus, [...range, status], offset, limit);
  };
}

/** A contractor's posted documents that move its balance, by date (then type and id): sums in kopecks. */
function statementReads(session: SqlSession): StatementReads {
  // A contractor's posted documents from the covering (contractor_id, status, type, sum) index, each joined to its date.
  const posted = `FROM document_records r JOIN documents d ON d.key = r.key WHERE r.contractor_id = ? AND r.status = 1 AND r.type IN (${typeList([...BALANCE_CREDIT_TYPES, ...BALANCE_DEBIT_TYPES])})`;
  const signedSum = `CASE WHEN r.type IN (${typeList(BALANCE_CREDIT_TYPES)}) THEN r.sum ELSE -r.sum END`;
  const outside = `SELECT CAST(coalesce(sum(CASE WHEN d.date < ? THEN ${signedSum} ELSE 0 END), 0) AS BIGINT) AS opening,
     CAST(count(CASE WHEN d.date > ? THEN 1 END) AS BIGINT) AS later ${posted} AND (d.date < ? OR d.date > ?)`;
  // A statement's order: the day, documents of goods before money, the number, the type and id. Only the keys are
  // read in that order: sorting touches every document of the period once, where a page read on a key of the
  // order would sort them all again for every page.
  const goodsFirst = `CASE WHEN r.type IN (${typeList(LINE_BALANCE_TYPES)}) THEN 0 ELSE 1 END`;
  const postedKeys = `SELECT r.key ${posted} AND d.date BETWEEN ? AND ? ORDER BY d.date, ${goodsFirst}, coalesce(r.number, ''), r.type, r.id LIMIT ?`;
  const postedByKeys = byCount((count) => `SELECT r.key, r.type, r.id, r.number, r.sum, d.date FROM document_records r JOIN documents d ON d.key = r.key WHERE r.key IN (${valueList(count)})`);
  return {
    outside: async (contractorId, dateFrom, dateTo) => (await session.objects<{ opening: number; later: number }>(outside, [dateFrom, dateTo, contractorId, dateFrom, dateTo]))[0],
    postedKeys: async (contractorId, dateFrom, dateTo, limit) => (await session.rows<[number]>(postedKeys, [contractorId, dateFrom, dateTo, limit])).map(([key]) => key),
    async postedByKeys(keys) {
      const found = new Map<number, PostedDocument>();
      await inChunks(keys as number[], async (chunk) => {
        for (const { key, ...doc } of await session.objects<PostedDocument & { key: number }>(postedByKeys(chunk.length), chunk)) found.set(key, doc);
      });
      return keys.flatMap((key) => found.get(key) ?? []);
    },
  };
}

/** What a document tree's drawing reads: the documents made from others, and their numbers and dates. */
function treeReads(session: SqlSession) {
  // The children of a level of a document tree with their records, in one statement (a round trip on a server).
  const childrenWithRecords = byCount(
    (parents) => `SELECT l.child_type, l.child_id, r.record FROM document_links l LEFT JOIN document_records r ON r.type = l.child_type AND r.id = l.child_id
       WHERE ${Array(parents).fill('(l.parent_type = ? AND l.parent_id = ?)').join(' OR ')}`,
  );
  return {
    /** The documents made from any of `parents` (whose basedOn names one), each once with its record, by type and id. */
    async childrenOf(parents: DocumentRef[]): Promise<ChildDocument[]> {
      const found = new Map<string, ChildDocument>();
      await inChunks(parents, async (chunk) => {
        const rows = await session.rows<[DocumentType, number, string | null]>(childrenWithRecords(chunk.length), chunk.flatMap((d) => [d.type, d.id]));
        for (const [type, id, record] of rows) found.set(`${type}-${id}`, { type, id, record: record === null ? undefined : JSON.parse(record) });
      });
      return [...found.values()].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : a.id - b.id));
    },
    /** The number and date of each of these documents (a tree's, for its drawing), by `type-id`: a seek each on (type, id). */
    async numbersOf(documents: { type: DocumentType; id: number }[]): Promise<Map<string, { number: string | null; date: string }>> {
      const found = new Map<string, { number: string | null; date: string }>();
      await inChunks(documents, async (chunk) => {
        const which = chunk.map(() => '(r.type = ? AND r.id = ?)').join(' OR ');
        const rows = await session.objects<{ type: string; id: number; number: string | null; date: string }>(
          `SELECT r.type, r.id, r.number, d.date FROM document_records r JOIN documents d ON d.key = r.key WHERE ${which}`,
          chunk.flatMap((d) => [d.type, d.id]),
        );
        for (const row of rows) found.set(`${row.type}-${row.id}`, { number: row.number, date: row.date });
      });
      return found;
    },
  };
}

/** The reads of the documents: searches, list pages, statements, trees and single documents. */
export function documentQueries(session: SqlSession) {
  return {
    /**
     * A page of the documents matching a search (`searchSql`), newest first, as the lists show them (JSON texts):
     * the first page, or the one after (older than) or before (newer than) a document. A cursor naming no document
     * gives the first page. Rows come in the order read: a page before, oldest first.
     */
    async search(by: DocumentSearch, limit: number, from?: SearchCursor): Promise<string[]> {
      const at = from && (await session.objects<SearchPosition>('SELECT date, key FROM documents WHERE type = ? AND id = ?', [from.type, from.id]))[0];
      const { sql, params } = searchSql(session.dialect, by, limit, at && { ...at, toward: from!.toward });
      return (await session.rows<[string]>(sql, params)).map(([json]) => json);
    },
    page: listPages(session),
    statement: statementReads(session),
    ...treeReads(session),
    /** One document as the lists show it (its JSON text), of any type; undefined when there is none. */
    listJson: (type: DocumentType, id: number) =>
      session.value<string>('SELECT d.list_json FROM document_records r JOIN documents d ON d.key = r.key WHERE r.type = ? AND r.id = ?', [type, id]),
    async byId(type: DocumentType, id: number): Promise<DocumentRecord | undefined> {
      const json = await session.value<string>('SELECT record FROM document_records WHERE type = ? AND id = ?', [type, id]);
      return json === undefined ? undefined : JSON.parse(json);
    },
  };
}
