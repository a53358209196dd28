import { phoneDigits } from '../../lib/phone.ts';
import { type SqlSession, byCount, inChunks, placeholders, valueList } from '../../storage/sql.ts';
import type { ContractorRecord } from '../../records/contractor/events.ts';
import { BALANCE_CREDIT_TYPES, BALANCE_DEBIT_TYPES } from '../../records/document/events.ts';
import { type ContractorEvent, evolveContractor, evolveContractorStatus } from '../../records/contractor/evolve.ts';
import type { StoredEvent } from '../../events/rows.ts';
import { idCounts, idCountsTable } from '../id-counts.ts';
import { newIds } from '../new-ids.ts';
import { type ApplyMode, type FlushBudget, type Projector, type TableNames, drainInChunks } from '../projector.ts';
import { nameKey } from '../../lib/name-key.ts';
import { contractorView } from './views.ts';

/**
 * Contractors with their response JSON kept ready. `contractor_id_counts` counts the ids in nested ranges
 * (`id-counts.ts`: a page at any offset finds its first id in a few seeks); `contractor_phones` holds each
 * phone's normalised digits so a lookup by phone is an index seek. `name_key` is the name as a search by part of it compares it (`nameKey`). `balance` and `bonus_balance` (kopecks) are derived from posted documents: the
 * document projection refreshes them at its flush whenever a document of the contractor moved.
 */
export const contractorsProjector: Projector = {
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
  countedIds: [{ rows: 'contractors', counts: 'contractor_id_counts' }],
  readIndexes: (n) => [
    `CREATE INDEX ${n('contractors_inn')} ON ${n('contractors')} (inn, id)`,
    // A search by part of a name reads this index, not the wide rows, and stops at a page of matches in name order.
    `CREATE INDEX ${n('contractors_name_key')} ON ${n('contractors')} (name_key, id)`,
  ],
  bind(session: SqlSession, n: TableNames, mode: ApplyMode) {
    const recordOf = `SELECT record FROM ${n('contractors')} WHERE id = ?`;
    const counts = idCounts(session, n('contractor_id_counts'), [], mode);
    const known = newIds(session, n('contractors'), [], mode);
    const insert = byCount((rows) => `INSERT INTO ${n('contractors')} (id, inn, name_key, record, balance, bonus_balance, json) VALUES ${placeholders(rows, 7)}`);
    const update = `UPDATE ${n('contractors')} SET inn = ?, name_key = ?, record = ? WHERE id = ?`;
    const dropPhones = `DELETE FROM ${n('contractor_phones')} WHERE contractor_id = ?`;
    const addPhones = byCount((rows) => `INSERT INTO ${n('contractor_phones')} (digits, contractor_id) VALUES ${placeholders(rows, 2)} ON CONFLICT DO NOTHING`);
    const addStatuses = byCount((rows) => `INSERT INTO ${n('contractor_statuses')} (name) VALUES ${placeholders(rows, 1)} ON CONFLICT DO NOTHING`);
    const figuresOf = bindContractorFigures(session, n, mode);
    const refresh = bindContractorRefresh(session, n, mode);
    // Edits are rendered at the flush, once per contractor however many touched it (see the documents projector).
    const toRefresh = new Set<number>();
    const flush = (budget: FlushBudget) => drainInChunks(toRefresh, budget, refresh);

    // New contractors (in any id order), and new statuses, wait here and go in a few statements together (a
    // batch of a hundred adds is one insert); they are written before any other event is handled, so whatever
    // reads these tables next (documents read a sale's contractor) finds them, and with them the counts they changed.
    const adding = new Map<number, ContractorRecord>();
    const statuses = new Set<string>();
    const row = (c: ContractorRecord, f: ContractorFigures) => [c.id, c.inn, nameKey(c.name), JSON.stringify(c), f.balance, f.bonusBalance, contractorJson(c, f)];
    const writeKeptBack = async () => {
      if (adding.size > 0) {
        const rows = [...adding.values()];
        adding.clear();
        // A build refreshes the figures of every contractor with documents at its end (the documents' flush).
        const figures = mode === 'build' ? new Map<number, ContractorFigures>() : await figuresOf(rows.map((c) => c.id));
        await inChunks(rows, (chunk) => session.run(insert(chunk.length), chunk.flatMap((c) => row(c, figures.get(c.id) ?? NO_FIGURES))));
        await writePhones(rows);
        await counts.persist();
      }
      if (statuses.size > 0) {
        const names = [...statuses];
        statuses.clear();
        await inChunks(names, (chunk) => session.run(addStatuses(chunk.length), chunk));
      }
    };
    // The end of a transaction: the highest id and the ids looked up do not outlive it.
    const persist = async () => {
      await writeKeptBack();
      known.forget();
    };
    const discard = () => {
      toRefresh.clear();
      adding.clear();
      statuses.clear();
      counts.discard();
      known.forget();
    };

    const writePhones = (contractors: ContractorRecord[]) => {
      const rows = contractors.flatMap((c) => [c.phone1, c.phone2].flatMap((phone) => (phone === null ? [] : [[phoneDigits(phone), c.id]])));
      return inChunks(rows, (chunk) => session.run(addPhones(chunk.length), chunk.flat()));
    };
    const save = async (c: ContractorRecord) => {
      await session.run(update, [c.inn, nameKey(c.name), JSON.stringify(c), c.id]);
      await session.run(dropPhones, [c.id]);
      await writePhones([c]);
      toRefresh.add(c.id);
    };
    const place = (c: ContractorRecord, isNew: boolean) => {
      if (isNew) {
        adding.set(c.id, c);
        known.add([], c.id);
        counts.add([], c.id);
        return undefined;
      }
      // Applying the same event twice changes nothing.
      if (adding.has(c.id)) adding.set(c.id, c);
      else return save(c);
    };
    // No promise for a contractor whose id is known new (every one of a batch `prepare` looked up).
    const add = (c: ContractorRecord) => {
      const isNew = known.isNew([], c.id);
      return typeof isNew === 'boolean' ? place(c, isNew) : isNew.then((answer) => place(c, answer));
    };
    const edit = async (event: ContractorEvent) => {
      const id = event.data.id;
      const waiting = adding.get(id);
      if (waiting !== undefined) adding.set(id, evolveContractor(() => waiting, event)!);
      else {
        const current = JSON.parse((await session.value<string>(recordOf, [id]))!) as ContractorRecord;
        await save(evolveContractor(() => current, event)!);
      }
    };

    const handle = (event: StoredEvent) => {
      switch (event.type) {
        case 'ContractorAdded':
          return add(evolveContractor(() => undefined, event)!);
        case 'ContractorEdited':
          return edit(event);
        case 'ContractorStatusCreated':
          statuses.add(evolveContractorStatus(event).name);
          break;
        default:
          // Nothing kept back: no promise made (most of a long log is other events).
          if (adding.size > 0 || statuses.size > 0) return writeKeptBack();
      }
    };
    // A batch's new ids looked up at once: ids in any order cost a statement a hundred, not a seek each.
    const prepare = (events: readonly StoredEvent[]) => known.lookUp(events.flatMap((e) => (e.type === 'ContractorAdded' ? [[[], e.data.id] as const] : [])));
    return Object.assign(handle, { prepare, persist, flush, discard });
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
 * documents is not in the map. A build asks only at its end, when no document changes any more, for most
 * contractors, and before the contractors' index is built (a read index): every contractor's figures are summed
 * in one pass over the records, once.
 */
function bindContractorFigures(session: SqlSession, n: TableNames, mode: ApplyMode): (ids: number[]) => Promise<Map<number, ContractorFigures>> {
  // Cast: PostgreSQL sums bigints as numeric, which would come back as text.
  const sums = `SELECT contractor_id,
              CAST(coalesce(sum(CASE WHEN type IN (${CREDIT_TYPES}) THEN sum WHEN type IN (${DEBIT_TYPES}) THEN -sum ELSE 0 END), 0) AS BIGINT),
              CAST(coalesce(sum(CASE WHEN type = 'sale' THEN bonus_accrual WHEN type = 'bonus' THEN -sum ELSE 0 END), 0) AS BIGINT)
       FROM ${n('document_records')} WHERE status = 1`;
  const figures = byCount((count) => `${sums} AND contractor_id IN (${valueList(count)}) GROUP BY contractor_id`);
  let everyone: Map<number, ContractorFigures> | undefined;
  return async (ids) => {
    if (mode === 'build') {
      if (everyone === undefined) {
        everyone = new Map();
        for (const [id, balance, bonusBalance] of await session.rows<[number, number, number]>(`${sums} GROUP BY contractor_id`)) everyone.set(id, { balance, bonusBalance });
      }
      return everyone;
    }
    const found = new Map<number, ContractorFigures>();
    await inChunks(ids, async (chunk) => {
      for (const [id, balance, bonusBalance] of await session.rows<[number, number, number]>(figures(chunk.length), chunk)) found.set(id, { balance, bonusBalance });
    });
    return found;
  };
}

const contractorJson = (c: ContractorRecord, f: ContractorFigures) => JSON.stringify(contractorView(c, f.balance, f.bonusBalance));

/** Recomputes contractors' figures and re-renders their JSON, a statement's worth of contractors at a time (ids unknown are skipped). */
export function bindContractorRefresh(session: SqlSession, n: TableNames, mode: ApplyMode): (ids: number[]) => Promise<void> {
  const recordsOf = byCount((count) => `SELECT id, record FROM ${n('contractors')} WHERE id IN (${valueList(count)})`);
  const figuresOf = bindContractorFigures(session, n, mode);
  const update = byCount(
    (rows) =>
      `WITH v (id, balance, bonus_balance, json) AS (VALUES ${session.dialect.typedRows(rows, ['integer', 'integer', 'integer', 'text'])})
       UPDATE ${n('contractors')} SET balance = v.balance, bonus_balance = v.bonus_balance, json = v.json FROM v WHERE ${n('contractors')}.id = v.id`,
  );
  return (ids) =>
    inChunks(ids, async (chunk) => {
      const found = await session.rows<[number, string]>(recordsOf(chunk.length), chunk);
      if (found.length === 0) return;
      const figures = await figuresOf(found.map(([id]) => id));
      await session.run(
        update(found.length),
        found.flatMap(([id, json]) => {
          const f = figures.get(id) ?? NO_FIGURES;
          return [id, f.balance, f.bonusBalance, contractorJson(JSON.parse(json), f)];
        }),
      );
    });
}
