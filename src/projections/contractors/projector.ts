import { phoneDigits } from '../../lib/phone.ts';
import type { ContractorRecord } from '../../records/contractor/events.ts';
import { BALANCE_CREDIT_TYPES, BALANCE_DEBIT_TYPES } from '../../records/document/events.ts';
import { evolveContractor, evolveContractorStatus } from '../../records/contractor/evolve.ts';
import { idCountsTable } from '../id-counts.ts';
import type { RecordReadModel, Sums } from '../read-model.ts';
import { recordProjector } from '../row-writer.ts';
import { nameKey } from '../../lib/name-key.ts';
import { contractorView } from './views.ts';

/** The document types that raise / lower a contractor's balance, as SQL lists. */
const sqlList = (types: readonly string[]) => types.map((t) => `'${t}'`).join(', ');
const CREDIT_TYPES = sqlList(BALANCE_CREDIT_TYPES);
const DEBIT_TYPES = sqlList(BALANCE_DEBIT_TYPES);

/**
 * Contractors' balances and bonus balances (kopecks) from their posted documents: sums over each contractor's own
 * documents (an index range), so any revision or un-posting is reflected exactly. A build sums every contractor's
 * in one pass over the records, once, at its end (when no document changes any more, and before the read index
 * is built).
 */
const CONTRACTOR_FIGURES: Sums = {
  table: 'document_records',
  key: 'contractor_id',
  where: 'status = 1',
  columns: [
    `coalesce(sum(CASE WHEN type IN (${CREDIT_TYPES}) THEN sum WHEN type IN (${DEBIT_TYPES}) THEN -sum ELSE 0 END), 0)`,
    `coalesce(sum(CASE WHEN type = 'sale' THEN bonus_accrual WHEN type = 'bonus' THEN -sum ELSE 0 END), 0)`,
  ],
};

/**
 * Contractors with their response JSON kept ready. `contractor_id_counts` counts the ids in nested ranges
 * (`id-counts.ts`: a page at any offset finds its first id in a few seeks); `contractor_phones` holds each
 * phone's normalised digits so a lookup by phone is an index seek. `name_key` is the name as a search by part of it
 * compares it (`nameKey`). `balance` and `bonus_balance` (kopecks) are derived from posted documents: the
 * document projection refreshes them at its flush whenever a document of the contractor moved.
 */
export const contractorsModel: RecordReadModel<ContractorRecord> = {
  name: 'contractors',
  version: 3,
  // A contractor added after documents of its id sums them from `document_records`, but no event changes both
  // (documents, which rewrite contractors' balances, come after it).
  after: [],
  tables: ['contractors', 'contractor_phones', 'contractor_statuses', 'contractor_id_counts'],
  schema: (n, { types: t, clusteredTableSuffix }) => [
    `CREATE TABLE ${n('contractors')} (
       id ${t.integer} PRIMARY KEY,
       inn ${t.text},
       name_key ${t.text},
       record ${t.text} NOT NULL,
       balance ${t.integer} NOT NULL,
       bonus_balance ${t.integer} NOT NULL,
       json ${t.text} NOT NULL)`,
    `CREATE TABLE ${n('contractor_phones')} (digits ${t.text} NOT NULL, contractor_id ${t.integer} NOT NULL, PRIMARY KEY (digits, contractor_id))${clusteredTableSuffix}`,
    `CREATE INDEX ${n('contractor_phones_contractor')} ON ${n('contractor_phones')} (contractor_id)`,
    `CREATE TABLE ${n('contractor_statuses')} (name ${t.text} PRIMARY KEY)`,
    idCountsTable(n('contractor_id_counts'), [], { types: t, clusteredTableSuffix }),
  ],
  readIndexes: (n) => [
    `CREATE INDEX ${n('contractors_inn')} ON ${n('contractors')} (inn, id)`,
    // A search by part of a name reads this index, not the wide rows, and stops at a page of matches in name order.
    `CREATE INDEX ${n('contractors_name_key')} ON ${n('contractors')} (name_key, id)`,
  ],
  records: {
    table: 'contractors',
    stored: { id: 'integer', inn: 'text', name_key: 'text', record: 'text' },
    row: (c) => [c.id, c.inn, nameKey(c.name), JSON.stringify(c)],
    read: { columns: ['record'], record: ([json]) => JSON.parse(json as string) as ContractorRecord },
    rendered: { balance: 'integer', bonus_balance: 'integer', json: 'text' },
    pagedBy: 'contractor_id_counts',
  },
  children: [
    {
      table: 'contractor_phones',
      parent: ['contractor_id'],
      parentKey: (c) => [c.id],
      columns: { digits: 'text', contractor_id: 'integer' },
      key: ['digits', 'contractor_id'],
      rows: (c) => [c.phone1, c.phone2].flatMap((phone) => (phone === null ? [] : [[phoneDigits(phone), c.id]])),
    },
  ],
  sets: { contractor_statuses: { name: 'text' } },
  on: {
    ContractorAdded: (event, contractors) => contractors.add(evolveContractor(() => undefined, event)!),
    ContractorEdited: (event, contractors) => contractors.edit(event.data.id, (current) => evolveContractor(() => current, event)),
    ContractorStatusCreated: (event, contractors) => contractors.note('contractor_statuses', [evolveContractorStatus(event).name]),
  },
  adds: ['ContractorAdded'],
  sums: { figures: CONTRACTOR_FIGURES },
  async render(contractors, context) {
    const figures = await context.sums('figures', contractors.map((c) => c.id));
    return contractors.map((c) => {
      const [balance, bonusBalance] = figures.get(c.id) ?? [0, 0];
      return [balance, bonusBalance, JSON.stringify(contractorView(c, balance, bonusBalance))];
    });
  },
};

export const contractorsProjector = recordProjector(contractorsModel);

