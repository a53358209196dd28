import { phoneDigits } from '../../lib/phone.ts';
import type { Sqlite } from '../../storage/sqlite/open.ts';
import type { ContractorRecord } from '../../events/contractors.ts';
import { BALANCE_CREDIT_TYPES, BALANCE_DEBIT_TYPES } from '../../events/documents.ts';
import type { StoredEvent } from '../../events/store.ts';
import { denseRank } from '../dense-rank.ts';
import { inChunks, placeholders, statementsByCount, valueList } from '../../storage/sqlite/statements.ts';
import { type FlushBudget, type Projector, type TableNames, drainInChunks } from '../projector.ts';
import { contractorView } from './views.ts';

/**
 * Contractors with their response JSON kept ready. `position` is the 1-based rank in id order (a page at any
 * offset is an index range scan); `contractor_phones` holds each phone's normalised digits so a lookup by
 * phone is an index seek. `balance` and `bonus_balance` (kopecks) are derived from posted documents: the
 * document projection refreshes them at its flush whenever a document of the contractor moved.
 */
export const contractorsProjector: Projector = {
  name: 'contractors',
  version: 1,
  // A contractor added after documents of its id sums them from `document_records`, but no event changes both
  // (documents, which rewrite contractors' balances, come after it).
  after: [],
  tables: ['contractors', 'contractor_phones', 'contractor_statuses'],
  schema: (n, dialect) => [
    `CREATE TABLE ${n('contractors')} (
       id INTEGER PRIMARY KEY,
       position INTEGER NOT NULL,
       inn TEXT,
       record TEXT NOT NULL,
       balance INTEGER NOT NULL,
       bonus_balance INTEGER NOT NULL,
       json TEXT NOT NULL)`,
    `CREATE TABLE ${n('contractor_phones')} (digits TEXT NOT NULL, contractor_id INTEGER NOT NULL, PRIMARY KEY (digits, contractor_id))${dialect.clusteredTableSuffix}`,
    `CREATE INDEX ${n('contractor_phones_contractor')} ON ${n('contractor_phones')} (contractor_id)`,
    `CREATE TABLE ${n('contractor_statuses')} (name TEXT PRIMARY KEY)`,
  ],
  readIndexes: (n) => [
    `CREATE INDEX ${n('contractors_position')} ON ${n('contractors')} (position)`,
    `CREATE INDEX ${n('contractors_inn')} ON ${n('contractors')} (inn, id)`,
  ],
  bind(db: Sqlite, n: TableNames) {
    const record = db.prepare(`SELECT record FROM ${n('contractors')} WHERE id = ?`).pluck();
    const positions = denseRank(db, { table: n('contractors'), rank: 'position' });
    const insert = statementsByCount(
      db,
      (rows) => `INSERT INTO ${n('contractors')} (id, position, inn, record, balance, bonus_balance, json) VALUES ${placeholders(rows, 7)}`,
    );
    const update = db.prepare(`UPDATE ${n('contractors')} SET inn = @inn, record = @record WHERE id = @id`);
    const dropPhones = db.prepare(`DELETE FROM ${n('contractor_phones')} WHERE contractor_id = ?`);
    const addPhones = statementsByCount(db, (rows) => `INSERT INTO ${n('contractor_phones')} (digits, contractor_id) VALUES ${placeholders(rows, 2)} ON CONFLICT DO NOTHING`);
    const addStatuses = statementsByCount(db, (rows) => `INSERT INTO ${n('contractor_statuses')} (name) VALUES ${placeholders(rows, 1)} ON CONFLICT DO NOTHING`);
    const figuresOf = bindContractorFigures(db, n);
    const refresh = bindContractorRefresh(db, n);
    // Edits are rendered at the flush, once per contractor however many touched it (see the documents projector).
    const toRefresh = new Set<number>();
    const flush = (budget: FlushBudget) => drainInChunks(toRefresh, budget, refresh);

    // New contractors above the highest id, and new statuses, wait here and go in a few statements together
    // (a batch of a hundred adds is one insert); they are written before any other event is handled, so
    // whatever reads these tables next (documents read a sale's contractor) finds them.
    const adding = new Map<number, { contractor: ContractorRecord; position: number }>();
    const statuses = new Set<string>();
    let top: { id: number; rank: number } | undefined;
    const persist = () => {
      if (adding.size > 0) {
        const rows = [...adding.values()];
        const figures = figuresOf(rows.map((row) => row.contractor.id));
        inChunks(rows, (chunk) =>
          insert(chunk.length).run(
            chunk.flatMap(({ contractor: c, position }) => {
              const f = figures.get(c.id) ?? NO_FIGURES;
              return [c.id, position, c.inn, JSON.stringify(c), f.balance, f.bonusBalance, contractorJson(c, f)];
            }),
          ),
        );
        writePhones(rows.map((row) => row.contractor));
        adding.clear();
      }
      top = undefined;
      if (statuses.size > 0) inChunks([...statuses], (chunk) => addStatuses(chunk.length).run(chunk));
      statuses.clear();
    };
    const discard = () => {
      toRefresh.clear();
      adding.clear();
      statuses.clear();
      top = undefined;
    };

    const writePhones = (contractors: ContractorRecord[]) => {
      const rows = contractors.flatMap((c) => [c.phone1, c.phone2].flatMap((phone) => (phone === null ? [] : [[phoneDigits(phone), c.id]])));
      inChunks(rows, (chunk) => addPhones(chunk.length).run(chunk.flat()));
    };
    const save = (c: ContractorRecord) => {
      update.run({ id: c.id, inn: c.inn, record: JSON.stringify(c) });
      dropPhones.run(c.id);
      writePhones([c]);
      toRefresh.add(c.id);
    };
    const add = (c: ContractorRecord) => {
      top ??= positions.highest([]) ?? { id: 0, rank: 0 };
      if (c.id > top.id) {
        top = { id: c.id, rank: top.rank + 1 };
        adding.set(c.id, { contractor: c, position: top.rank });
        return;
      }
      // An id at or below the highest (an import, or the same event applied again) is placed among the rows.
      persist();
      const { existing, rank: position } = positions.place([], c.id, () => record.get(c.id));
      if (existing !== undefined) return save(c); // applying the same event twice changes nothing
      const f = figuresOf([c.id]).get(c.id) ?? NO_FIGURES;
      insert(1).run([c.id, position, c.inn, JSON.stringify(c), f.balance, f.bonusBalance, contractorJson(c, f)]);
      writePhones([c]);
    };
    const edit = (id: number, changes: Partial<ContractorRecord>) => {
      const waiting = adding.get(id);
      if (waiting !== undefined) waiting.contractor = { ...waiting.contractor, ...changes };
      else save({ ...(JSON.parse(record.get(id) as string) as ContractorRecord), ...changes });
    };

    const handle = (event: StoredEvent) => {
      switch (event.type) {
        case 'ContractorAdded':
          add(event.data);
          break;
        case 'ContractorEdited':
          edit(event.data.id, event.data.changes);
          break;
        case 'ContractorStatusCreated':
          statuses.add(event.data.name);
          break;
        default:
          persist();
      }
    };
    return Object.assign(handle, { persist, flush, discard });
  },
};

/** The document types that raise / lower a contractor's balance, as SQL lists. */
const sqlList = (types: readonly string[]) => types.map((t) => `'${t}'`).join(', ');
const CREDIT_TYPES = sqlList(BALANCE_CREDIT_TYPES);
const DEBIT_TYPES = sqlList(BALANCE_DEBIT_TYPES);

/** A contractor's derived figures, kopecks. */
interface ContractorFigures {
  balance: number;
  bonusBalance: number;
}

const NO_FIGURES: ContractorFigures = { balance: 0, bonusBalance: 0 };

/**
 * Contractors' balances and bonus balances from their posted documents: sums over each contractor's own
 * documents (an index range), so any revision or un-posting is reflected exactly. A contractor without posted
 * documents is not in the map.
 */
function bindContractorFigures(db: Sqlite, n: TableNames): (ids: number[]) => Map<number, ContractorFigures> {
  const figures = statementsByCount(
    db,
    (count) =>
      `SELECT contractor_id,
              coalesce(sum(CASE WHEN type IN (${CREDIT_TYPES}) THEN sum WHEN type IN (${DEBIT_TYPES}) THEN -sum ELSE 0 END), 0),
              coalesce(sum(CASE WHEN type = 'sale' THEN bonus_accrual WHEN type = 'bonus' THEN -sum ELSE 0 END), 0)
       FROM ${n('document_records')} WHERE contractor_id IN (${valueList(count)}) AND status = 1 GROUP BY contractor_id`,
    (statement) => statement.raw(),
  );
  return (ids) => {
    const found = new Map<number, ContractorFigures>();
    inChunks(ids, (chunk) => {
      for (const [id, balance, bonusBalance] of figures(chunk.length).all(chunk) as [number, number, number][]) found.set(id, { balance, bonusBalance });
    });
    return found;
  };
}

const contractorJson = (c: ContractorRecord, f: ContractorFigures) => JSON.stringify(contractorView(c, f.balance, f.bonusBalance));

/** Recomputes contractors' figures and re-renders their JSON, a statement's worth of contractors at a time (ids unknown are skipped). */
export function bindContractorRefresh(db: Sqlite, n: TableNames): (ids: number[]) => void {
  const recordsOf = statementsByCount(db, (count) => `SELECT id, record FROM ${n('contractors')} WHERE id IN (${valueList(count)})`, (statement) => statement.raw());
  const figuresOf = bindContractorFigures(db, n);
  const update = statementsByCount(
    db,
    (rows) =>
      `WITH v (id, balance, bonus_balance, json) AS (VALUES ${placeholders(rows, 4)})
       UPDATE ${n('contractors')} SET balance = v.balance, bonus_balance = v.bonus_balance, json = v.json FROM v WHERE ${n('contractors')}.id = v.id`,
  );
  return (ids) =>
    inChunks(ids, (chunk) => {
      const found = recordsOf(chunk.length).all(chunk) as [number, string][];
      if (found.length === 0) return;
      const figures = figuresOf(found.map(([id]) => id));
      update(found.length).run(
        found.flatMap(([id, json]) => {
          const f = figures.get(id) ?? NO_FIGURES;
          return [id, f.balance, f.bonusBalance, contractorJson(JSON.parse(json), f)];
        }),
      );
    });
}
