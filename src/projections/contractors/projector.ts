import { phoneDigits } from '../../lib/phone.ts';
import type { Sqlite } from '../../storage/sqlite/open.ts';
import type { ContractorRecord } from '../../events/contractors.ts';
import type { StoredEvent } from '../../events/store.ts';
import { denseRank } from '../dense-rank.ts';
import { type FlushBudget, type Projector, type TableNames, drain } from '../projector.ts';
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
    const insert = db.prepare(
      `INSERT INTO ${n('contractors')} (id, position, inn, record, balance, bonus_balance, json)
       VALUES (@id, @position, @inn, @record, @balance, @bonusBalance, @json)`,
    );
    const update = db.prepare(`UPDATE ${n('contractors')} SET inn = @inn, record = @record WHERE id = @id`);
    const dropPhones = db.prepare(`DELETE FROM ${n('contractor_phones')} WHERE contractor_id = ?`);
    const addPhone = db.prepare(`INSERT INTO ${n('contractor_phones')} (digits, contractor_id) VALUES (?, ?) ON CONFLICT DO NOTHING`);
    const addStatus = db.prepare(`INSERT INTO ${n('contractor_statuses')} (name) VALUES (?) ON CONFLICT DO NOTHING`);
    const figuresOf = bindContractorFigures(db, n);
    const refresh = bindContractorRefresh(db, n);
    // Edits are rendered at the flush, once per contractor however many touched it (see the documents projector).
    const toRefresh = new Set<number>();
    const flush = (budget: FlushBudget) => drain(toRefresh, budget, refresh);
    const discard = () => toRefresh.clear();

    const addPhones = (c: ContractorRecord) => {
      for (const phone of [c.phone1, c.phone2]) if (phone !== null) addPhone.run(phoneDigits(phone), c.id);
    };
    const save = (c: ContractorRecord) => {
      update.run({ id: c.id, inn: c.inn, record: JSON.stringify(c) });
      dropPhones.run(c.id);
      addPhones(c);
      toRefresh.add(c.id);
    };
    const add = (c: ContractorRecord) => {
      const { existing, rank: position } = positions.place([], c.id, () => record.get(c.id));
      if (existing !== undefined) return save(c); // applying the same event twice changes nothing
      // Rendered as it is inserted (one row write, not an insert and an update); documents recorded for it
      // later refresh it at their flush.
      const figures = figuresOf(c.id);
      insert.run({ id: c.id, position, inn: c.inn, record: JSON.stringify(c), ...figures, json: contractorJson(c, figures) });
      addPhones(c);
    };

    const handle = (event: StoredEvent) => {
      switch (event.type) {
        case 'ContractorAdded':
          add(event.data);
          break;
        case 'ContractorEdited':
          save({ ...(JSON.parse(record.get(event.data.id) as string) as ContractorRecord), ...event.data.changes });
          break;
        case 'ContractorStatusCreated':
          addStatus.run(event.data.name);
          break;
      }
    };
    return Object.assign(handle, { flush, discard });
  },
};

/** Document types that raise / lower a contractor's balance when posted (decisions.md section 7). */
const CREDIT_TYPES = "'cashin', 'paymentin', 'bonus', 'purchase', 'customerreturn'";
const DEBIT_TYPES = "'cashout', 'paymentout', 'sale', 'supplierreturn'";

/** A contractor's derived figures, kopecks. */
interface ContractorFigures {
  balance: number;
  bonusBalance: number;
}

/**
 * A contractor's balance and bonus balance from its posted documents: a sum over the contractor's own documents
 * (an index range), so any revision or un-posting is reflected exactly.
 */
function bindContractorFigures(db: Sqlite, n: TableNames): (id: number) => ContractorFigures {
  const figures = db.prepare(
    `SELECT coalesce(sum(CASE WHEN type IN (${CREDIT_TYPES}) THEN sum WHEN type IN (${DEBIT_TYPES}) THEN -sum ELSE 0 END), 0) AS balance,
            coalesce(sum(CASE WHEN type = 'sale' THEN bonus_accrual WHEN type = 'bonus' THEN -sum ELSE 0 END), 0) AS bonusBalance
     FROM ${n('document_records')} WHERE contractor_id = ? AND status = 1`,
  );
  return (id) => figures.get(id) as ContractorFigures;
}

const contractorJson = (c: ContractorRecord, f: ContractorFigures) => JSON.stringify(contractorView(c, f.balance, f.bonusBalance));

/** Recomputes a contractor's figures and re-renders its JSON. */
export function bindContractorRefresh(db: Sqlite, n: TableNames): (id: number) => void {
  const record = db.prepare(`SELECT record FROM ${n('contractors')} WHERE id = ?`).pluck();
  const figuresOf = bindContractorFigures(db, n);
  const update = db.prepare(`UPDATE ${n('contractors')} SET balance = @balance, bonus_balance = @bonusBalance, json = @json WHERE id = @id`);
  return (id: number) => {
    const json = record.get(id) as string | undefined;
    if (json === undefined) return;
    const figures = figuresOf(id);
    update.run({ id, ...figures, json: contractorJson(JSON.parse(json), figures) });
  };
}
