import type { Sqlite } from '../../storage/sqlite/open.ts';
import type { ContractorRecord } from '../../events/contractors.ts';
import { type DocumentFields, type DocumentRef, type DocumentType, isLineDocument } from '../../events/documents.ts';
import type { StoredEvent } from '../../events/store.ts';
import { daysInMonth } from '../../lib/clock.ts';
import { bindContractorRefresh } from '../contractors/projector.ts';
import { type ShownContractor, lineDocumentView, moneyDocumentView, shownContractor, treeNodeHead, treeNodeJson } from './views.ts';
import { denseRank } from '../dense-rank.ts';
import { type JoinedPage, joinedPageQuery } from '../joined-page.ts';
import { type FlushBudget, type Projector, type TableNames, drain } from '../projector.ts';

/** A document's own state as its events left it; the derived figures live in their own columns. */
export interface DocumentRecord {
  fields: DocumentFields;
  status: number;
  basedOn: DocumentRef[];
}

/** Money documents whose posted sum counts as paid on every document their `basedOn` chain reaches. */
const PAYING_TYPES: readonly DocumentType[] = ['cashin', 'paymentin', 'bonus'];
/** Contractors kept shown during a flush (~150 bytes each): a rebuild's flush reads each once, and memory stays bounded. */
const OWNERS_KEPT = 20_000;
/** Changes of these fields move the figures of the whole linked component (tree nodes, paid). */
const COMPONENT_FIELDS = ['sum', 'created', 'register'];

/**
 * Every document of every type in two tables. `document_records` holds what events write and commands and
 * balances read: the record, status, sum, bonus, and `position`, the rank in id order within its type.
 * `documents` holds what the lists serve: the list JSON kept ready (its last key is the dependency tree), `paid`,
 * and the columns pages filter on; `position` serves unfiltered pages as index range scans, (type, date, status,
 * id) date-filtered pages and counts from the index alone. A served row is written only at the flush (after
 * every appended record live, once at the end of a rebuild), so a rebuild writes each one once, final.
 * `paid` and the tree are derived from the linked component and recomputed for the whole component whenever an
 * event moves a status, a sum, a link or a node's label.
 */
export const documentsProjector: Projector = {
  name: 'documents',
  version: 2,
  // Reads a contractor's record (its bonus programme, what a document shows of it) and rewrites its balances.
  after: ['contractors'],
  tables: ['documents', 'document_records', 'document_links'],
  schema: (n) => [
    `CREATE TABLE ${n('document_records')} (
       key INTEGER PRIMARY KEY,
       type TEXT NOT NULL,
       id INTEGER NOT NULL,
       position INTEGER NOT NULL,
       status INTEGER NOT NULL,
       contractor_id INTEGER NOT NULL,
       sum INTEGER NOT NULL,
       bonus_percent REAL,
       bonus_accrual INTEGER NOT NULL,
       record TEXT NOT NULL,
       UNIQUE (type, id))`,
    // Covering: a contractor's balances are summed from the index alone, never touching the records.
    `CREATE INDEX ${n('documents_contractor')} ON ${n('document_records')} (contractor_id, status, type, sum, bonus_accrual)`,
    `CREATE TABLE ${n('documents')} (
       key INTEGER PRIMARY KEY,
       type TEXT NOT NULL,
       id INTEGER NOT NULL,
       position INTEGER NOT NULL,
       date TEXT NOT NULL,
       month TEXT NOT NULL,
       status INTEGER NOT NULL,
       paid INTEGER NOT NULL,
       list_json TEXT NOT NULL)`,
    `CREATE TABLE ${n('document_links')} (
       child_type TEXT NOT NULL, child_id INTEGER NOT NULL, parent_type TEXT NOT NULL, parent_id INTEGER NOT NULL,
       PRIMARY KEY (child_type, child_id, parent_type, parent_id)) WITHOUT ROWID`,
    `CREATE INDEX ${n('document_links_parent')} ON ${n('document_links')} (parent_type, parent_id)`,
  ],
  readIndexes: (n) => [
    `CREATE INDEX ${n('documents_position')} ON ${n('documents')} (type, position)`,
    `CREATE INDEX ${n('documents_date')} ON ${n('documents')} (type, date, status, id)`,
    `CREATE INDEX ${n('documents_status')} ON ${n('documents')} (type, status, id)`,
    // A whole calendar month walks its documents in id order: OFFSET skips index entries, no sort.
    // (A column, not an expression on `date`: only then is the index covering.)
    `CREATE INDEX ${n('documents_month')} ON ${n('documents')} (type, month, id, status)`,
  ],
  bind(db: Sqlite, n: TableNames) {
    const columns = `key, type, id, position, record, bonus_percent AS bonusPercent FROM ${n('document_records')}`;
    const row = db.prepare(`SELECT ${columns} WHERE type = ? AND id = ?`);
    const rowByKey = db.prepare(`SELECT ${columns} WHERE key = ?`);
    const served = db.prepare(`SELECT paid, list_json AS json FROM ${n('documents')} WHERE key = ?`);
    // The served rows keep the records' positions.
    const positions = denseRank(db, { table: n('document_records'), rank: 'position', partition: ['type'], copies: [n('documents')] });
    const insert = db.prepare(
      `INSERT INTO ${n('document_records')} (type, id, position, status, contractor_id, sum, bonus_percent, bonus_accrual, record)
       VALUES (@type, @id, @position, @status, @contractorId, @sum, @bonusPercent, @accrual, @record)`,
    );
    const update = db.prepare(
      `UPDATE ${n('document_records')} SET status = @status, contractor_id = @contractorId, sum = @sum, bonus_accrual = @accrual, record = @record
       WHERE key = @key`,
    );
    const save = db.prepare(
      `INSERT INTO ${n('documents')} (key, type, id, position, date, month, status, paid, list_json)
       VALUES (@key, @type, @id, @position, @date, substr(@date, 1, 7), @status, @paid, @json)
       ON CONFLICT (key) DO UPDATE SET position = excluded.position, date = excluded.date, month = excluded.month, status = excluded.status,
         paid = excluded.paid, list_json = excluded.list_json`,
    );
    const dropLinks = db.prepare(`DELETE FROM ${n('document_links')} WHERE child_type = ? AND child_id = ?`);
    const addLink = db.prepare(`INSERT OR IGNORE INTO ${n('document_links')} (child_type, child_id, parent_type, parent_id) VALUES (?, ?, ?, ?)`);
    const childrenOf = db.prepare(`SELECT child_type AS type, child_id AS id FROM ${n('document_links')} WHERE parent_type = ? AND parent_id = ?`);
    const ofContractor = db.prepare(`SELECT key FROM ${n('document_records')} WHERE contractor_id = ?`).pluck();
    const contractorRecord = db.prepare(`SELECT record FROM ${n('contractors')} WHERE id = ?`).pluck();
    const refreshContractor = bindContractorRefresh(db, n);

    type Row = { key: number; type: DocumentType; id: number; position: number; record: string; bonusPercent: number | null };
    const load = (type: DocumentType, id: number) => row.get(type, id) as Row | undefined;
    const contractor = (id: number) => {
      const json = contractorRecord.get(id) as string | undefined;
      return json === undefined ? undefined : (JSON.parse(json) as ContractorRecord);
    };
    /** What documents show of the contractors read during one flush, at most OWNERS_KEPT at a time. */
    const owners = new Map<number, ShownContractor | undefined>();
    const owner = (id: number) => {
      if (!owners.has(id)) {
        if (owners.size >= OWNERS_KEPT) owners.clear();
        const found = contractor(id);
        owners.set(id, found && shownContractor(found));
      }
      return owners.get(id);
    };

    const render = ({ key, type, id, position }: Row, doc: DocumentRecord, paid: number, tree: string) => {
      const view = isLineDocument(type)
        ? lineDocumentView(id, type, doc.status, doc.fields, owner(doc.fields.contractorId), paid, null)
        : moneyDocumentView(id, type, doc.status, doc.fields, owner(doc.fields.contractorId), null);
      // The tree is kept as JSON text already; it is the view's last key, so it is spliced in as text.
      const json = JSON.stringify(view).slice(0, -'null}'.length) + tree + '}';
      save.run({ key, type, id, position, date: doc.fields.date, status: doc.status, paid, json });
    };
    /**
     * Re-renders one document's list JSON with the paid and tree it is served with (a change that moves neither).
     * The tree is the list JSON's last key, and no tree node holds a key named "tree".
     */
    const rerender = (key: number) => {
      const r = rowByKey.get(key) as Row;
      const { paid, json } = served.get(key) as { paid: number; json: string };
      render(r, JSON.parse(r.record), paid, json.slice(json.lastIndexOf(',"tree":') + ',"tree":'.length, -1));
    };

    /** Recomputes paid and the tree of every document connected to the seed by links, and re-renders them. */
    const refreshComponent = (seed: Row, refreshed: Set<number>) => {
      interface Node {
        ref: DocumentRef;
        row: Row;
        doc: DocumentRecord;
        head: string;
        children: string[];
        paid: number;
      }
      const nodes = new Map<string, Node>();
      const name = (r: DocumentRef) => `${r.type}:${r.id}`;
      // Components are disjoint: a walk from a seed not refreshed yet meets no refreshed document.
      const queue: DocumentRef[] = [seed];
      while (queue.length > 0) {
        const ref = queue.pop()!;
        if (nodes.has(name(ref))) continue;
        const r = ref === seed ? seed : load(ref.type, ref.id);
        if (!r) continue;
        refreshed.add(r.key);
        const children = childrenOf.all(ref.type, ref.id) as DocumentRef[];
        const doc = JSON.parse(r.record) as DocumentRecord;
        nodes.set(name(ref), { ref, row: r, doc, head: treeNodeHead(ref.type, ref.id, doc.fields, doc.status), children: children.map(name), paid: 0 });
        // A document's links are its basedOn: its parents need no query.
        queue.push(...children, ...doc.basedOn);
      }
      const byKey = (a: string, b: string) => nodes.get(a)!.row.key - nodes.get(b)!.row.key;
      for (const n of nodes.values()) n.children.sort(byKey);

      // paid: each posted payment counts once on every document its basedOn chain reaches.
      for (const payment of nodes.values()) {
        if (!PAYING_TYPES.includes(payment.ref.type) || payment.doc.status !== 1) continue;
        const reached = new Set<string>();
        const up = [...payment.doc.basedOn.map(name)];
        while (up.length > 0) {
          const at = up.pop()!;
          if (reached.has(at) || !nodes.has(at)) continue;
          reached.add(at);
          up.push(...nodes.get(at)!.doc.basedOn.map(name));
        }
        for (const at of reached) nodes.get(at)!.paid += payment.doc.fields.sum;
      }

      const treeOf = (at: string, self: string, path: Set<string>): string => {
        const n = nodes.get(at)!;
        const inner = new Set(path).add(at);
        return treeNodeJson(
          n.head,
          at === self,
          n.children.filter((c) => !inner.has(c)).map((c) => treeOf(c, self, inner)),
        );
      };
      const roots = [...nodes.keys()].filter((k) => nodes.get(k)!.doc.basedOn.every((p) => !nodes.has(name(p)))).sort(byKey);
      /** The root a document descends from, following its first `basedOn` upward. */
      const rootOf = (start: string) => {
        const seen = new Set<string>();
        let at = start;
        while (!seen.has(at)) {
          seen.add(at);
          const first = nodes.get(at)!.doc.basedOn.map(name).find((p) => nodes.has(p));
          if (first === undefined) return at;
          at = first;
        }
        return at;
      };
      for (const [self, n] of nodes) {
        const tree = isLineDocument(n.ref.type) ? treeOf(rootOf(self), self, new Set()) : `[${roots.map((r) => treeOf(r, self, new Set())).join(',')}]`;
        render(n.row, n.doc, n.paid, tree);
      }
    };

    // Work deferred to the flush, so each component, document and contractor is rendered once however many
    // events touched it (a chain of k documents recorded in one rebuild renders k nodes, not k² as per event).
    // Only the served rows wait (and balances and JSON in contractors): what commands and other projectors read
    // while events are applied (document_records, links) is written by the event itself.
    // Documents by key: a number per document keeps a rebuild's whole log of them small.
    const componentSeeds = new Set<number>();
    const toRerender = new Set<number>();
    const contractorsToRefresh = new Set<number>();
    // Documents refreshed by this flush (kept across its steps).
    const refreshed = new Set<number>();
    // Nothing outlives a flush, so a rolled-back transaction leaves nothing behind for the next one.
    const discard = () => {
      for (const pending of [componentSeeds, toRerender, contractorsToRefresh, refreshed]) pending.clear();
      owners.clear();
    };
    const flush = (budget: FlushBudget) => {
      const done =
        drain(componentSeeds, budget, (seed) => {
          if (!refreshed.has(seed)) refreshComponent(rowByKey.get(seed) as Row, refreshed);
        }) &&
        drain(toRerender, budget, (key) => {
          if (!refreshed.has(key)) rerender(key);
        }) &&
        drain(contractorsToRefresh, budget, refreshContractor);
      if (done) discard();
      return done;
    };

    /** Applies a change to one document and marks everything derived from it for the flush. */
    const change = (type: DocumentType, id: number, next: (current: DocumentRecord | undefined) => DocumentRecord, wholeComponent: boolean) => {
      const { existing: current, rank: position } = positions.place([type], id, () => load(type, id));
      const before = current ? (JSON.parse(current.record) as DocumentRecord) : undefined;
      let key = current?.key;
      const doc = next(before);
      const columns = { status: doc.status, contractorId: doc.fields.contractorId, sum: doc.fields.sum, record: JSON.stringify(doc) };
      const accrual = (percent: number | null) => (percent === null ? 0 : Math.round((doc.fields.sum * percent) / 100));
      if (current) {
        update.run({ ...columns, key: current.key, accrual: accrual(current.bonusPercent) });
      } else {
        // A sale earns bonus at the percent of the contractor's programme as it is when the sale is recorded.
        const bonus = type === 'sale' ? contractor(doc.fields.contractorId)?.bonus : undefined;
        const bonusPercent = bonus?.status === 1 ? (bonus.percent ?? 0) : null;
        key = insert.run({ ...columns, type, id, position, bonusPercent, accrual: accrual(bonusPercent) }).lastInsertRowid as number;
      }
      if (!before || JSON.stringify(before.basedOn) !== JSON.stringify(doc.basedOn)) {
        // A document recorded now has no links to drop: they are written with its record.
        if (before) dropLinks.run(type, id);
        for (const p of doc.basedOn) addLink.run(type, id, p.type, p.id);
      }
      if (wholeComponent || !before) {
        // An unlinked parent may now head a component of its own.
        componentSeeds.add(key!);
        for (const parent of before?.basedOn ?? []) {
          const formerParent = load(parent.type, parent.id);
          if (formerParent) componentSeeds.add(formerParent.key);
        }
      } else {
        toRerender.add(key!);
      }
      contractorsToRefresh.add(doc.fields.contractorId);
      if (before && before.fields.contractorId !== doc.fields.contractorId) contractorsToRefresh.add(before.fields.contractorId);
    };

    const handle = (event: StoredEvent) => {
      switch (event.type) {
        case 'DocumentRecorded': {
          const { docType, id, fields, status, basedOn } = event.data;
          change(docType, id, () => ({ fields, status, basedOn }), true);
          break;
        }
        case 'DocumentRevised': {
          const { docType, id, changes } = event.data;
          const moves = Object.keys(changes).some((k) => COMPONENT_FIELDS.includes(k));
          change(docType, id, (d) => ({ ...d!, fields: { ...d!.fields, ...changes } }), moves);
          break;
        }
        case 'DocumentPosted':
        case 'DocumentUnposted': {
          const status = event.type === 'DocumentPosted' ? 1 : 0;
          change(event.data.docType, event.data.id, (d) => ({ ...d!, status }), true);
          break;
        }
        case 'DocumentLinked':
          change(event.data.docType, event.data.id, (d) => ({ ...d!, basedOn: event.data.basedOn }), true);
          break;
        case 'ContractorEdited': {
          // Documents show their contractor as it is now.
          const shown = ['type', 'name', 'contactPerson', 'inn', 'kpp'];
          if (!Object.keys(event.data.changes).some((k) => shown.includes(k))) break;
          for (const key of ofContractor.all(event.data.id) as number[]) toRerender.add(key);
          break;
        }
      }
    };
    return Object.assign(handle, { flush, discard });
  },
};

/** `YYYY-MM` when the range is exactly the first to the last day of one month. */
function wholeMonth(from: string | undefined, to: string | undefined): string | undefined {
  if (from === undefined || to === undefined || !from.endsWith('-01') || from.slice(0, 7) !== to.slice(0, 7)) return undefined;
  const lastDay = daysInMonth(Number(from.slice(0, 4)), Number(from.slice(5, 7)));
  return to === `${from.slice(0, 8)}${String(lastDay).padStart(2, '0')}` ? from.slice(0, 7) : undefined;
}

export interface DocumentFilter {
  dateFrom?: string;
  dateTo?: string;
  status?: number;
}

/**
 * The document lists, sorted by id. Unfiltered pages go by `position`, one whole month by its rank within the
 * month (`document-months.ts`): both are index range scans at any offset, and their counts one seek. Other
 * filters select the page's keys in id order from a covering index (type, status, id) / (type, month, id,
 * status) / (type, date, status, id) — OFFSET skips index entries, never rows — and fetch just those rows.
 */
export function documentQueries(db: Sqlite) {
  // Positions are dense 1..n within a type, so the highest one is the count: one seek on (type, position).
  const byPosition = joinedPageQuery(
    db,
    'SELECT list_json AS json FROM documents WHERE type = @type AND position > @offset ORDER BY position LIMIT @limit',
    'SELECT coalesce((SELECT position FROM documents WHERE type = @type ORDER BY position DESC LIMIT 1), 0)',
  );
  // The keys come from a co-routine in id order and each joins its row by rowid, so the page keeps that order
  // without sorting the wide rows (a `key IN (…) ORDER BY id` sorted 50 list JSONs: twice the cost).
  const keyed = (index: string, where: string) =>
    joinedPageQuery(
      db,
      `SELECT d.list_json AS json FROM (SELECT key FROM documents INDEXED BY ${index} WHERE ${where} ORDER BY id LIMIT @limit OFFSET @offset) AS p
       JOIN documents d ON d.key = p.key`,
      `SELECT count(*) FROM documents INDEXED BY ${index} WHERE ${where}`,
    );
  const byStatus = keyed('documents_status', 'type = @type AND status = @status');
  // `INDEXED BY` pins the covering indexes so the planner never picks a scan of the whole type in id order.
  const dated = keyed('documents_date', 'type = @type AND date BETWEEN @from AND @to');
  const datedStatus = keyed('documents_date', 'type = @type AND date BETWEEN @from AND @to AND status = @status');
  const monthStatus = keyed('documents_month', 'type = @type AND month = @month AND status = @status');
  const month = joinedPageQuery(
    db,
    `SELECT d.list_json AS json FROM document_months m JOIN documents d ON d.key = m.key
     WHERE m.type = @type AND m.month = @month AND m.rank > @offset ORDER BY m.rank LIMIT @limit`,
    'SELECT coalesce((SELECT rank FROM document_months WHERE type = @type AND month = @month ORDER BY rank DESC LIMIT 1), 0)',
  );
  const recordOf = db.prepare('SELECT record FROM document_records WHERE type = ? AND id = ?').pluck();

  return {
    page(type: DocumentType, filter: DocumentFilter, offset: number, limit: number): JoinedPage {
      const { dateFrom, dateTo, status } = filter;
      const paging = { type, limit, offset };
      if (dateFrom === undefined && dateTo === undefined) return status === undefined ? byPosition(paging) : byStatus({ ...paging, status });
      const whole = wholeMonth(dateFrom, dateTo);
      if (whole !== undefined) return status === undefined ? month({ ...paging, month: whole }) : monthStatus({ ...paging, month: whole, status });
      const range = { ...paging, from: dateFrom ?? '0000-01-01', to: dateTo ?? '9999-12-31' };
      return status === undefined ? dated(range) : datedStatus({ ...range, status });
    },
    byId(type: DocumentType, id: number): DocumentRecord | undefined {
      const json = recordOf.get(type, id) as string | undefined;
      return json === undefined ? undefined : JSON.parse(json);
    },
  };
}
