import { phoneDigits } from '../../lib/phone.ts';
import { type SqlSession, byCount, inChunks, placeholders, valueList } from '../../storage/sql.ts';
import type { ContractorRecord } from '../../events/contractors.ts';
import { BALANCE_CREDIT_TYPES, BALANCE_DEBIT_TYPES } from '../../events/documents.ts';
import { type ContractorEvent, evolveContractor, evolveContractorStatus } from '../../events/folds.ts';
import type { StoredEvent } from '../../events/rows.ts';
import { denseRank } from '../dense-rank.ts';
import { type FlushBudget, type Projector, type TableNames, drainInChunks } from '../projector.ts';
import { contractorView, nameKey } from './views.ts';

/**
 * Contractors with their response JSON kept ready. `position` is the 1-based rank in id order (a page at any
 * offset is an index range scan); `contractor_phones` holds each phone's normalised digits so a lookup by
 * phone is an index seek. `name_key` is the name as a search by part of it compares it (`nameKey`). `balance` and `bonus_balance` (kopecks) are derived from posted documents: the
 * document projection refreshes them at its flush whenever a document of the contractor moved.
 */
export const contractorsProjector: Projector = {
  name: 'contractors',
  version: 2,
  // A contractor added after documents of its id sums them from `document_records`, but no event changes both
  // (documents, which rewrite contractors' balances, come after it).
  after: [],
  tables: ['contractors', 'contractor_phones', 'contractor_statuses'],
  schema: (n, { types: t, clusteredTableSuffix }) => [
    `CREATE TABLE ${n('contractors')} (
       id ${t.integer} PRIMARY KEY,
       position ${t.integer} NOT NULL,
       inn ${t.text},
       name_key ${t.text},
       record ${t.text} NOT NULL,
       balance ${t.integer} NOT NULL,
       bonus_balance ${t.integer} NOT NULL,
       json ${t.text} NOT NULL)`,
    `CREATE TABLE ${n('contractor_phones')} (digits ${t.text} NOT NULL, contractor_id ${t.integer} NOT NULL, PRIMARY KEY (digits, contractor_id))${clusteredTableSuffix}`,
    `CREATE INDEX ${n('contractor_phones_contractor')} ON ${n('contractor_phones')} (contractor_id)`,
    `CREATE TABLE ${n('contractor_statuses')} (name ${t.text} PRIMARY KEY)`,
  ],
  readIndexes: (n) => [
    `CREATE INDEX ${n('contractors_position')} ON ${n('contractors')} (position)`,
    `CREATE INDEX ${n('contractors_inn')} ON ${n('contractors')} (inn, id)`,
    // A search by part of a name reads this index, not the wide rows, and stops at a page of matches in name order.
    `CREATE INDEX ${n('contractors_name_key')} ON ${n('contractors')} (name_key, id)`,
  ],
  bind(session: SqlSession, n: TableNames) {
    const recordOf = `SELECT record FROM ${n('contractors')} WHERE id = ?`;
    const positions = denseRank(session, { table: n('contractors'), rank: 'position' });
    const insert = byCount((rows) => `INSERT INTO ${n('contractors')} (id, position, inn, name_key, record, balance, bonus_balance, json) VALUES ${placeholders(rows, 8)}`);
    const update = `UPDATE ${n('contractors')} SET inn = ?, name_key = ?, record = ? WHERE id = ?`;
    const dropPhones = `DELETE FROM ${n('contractor_phones')} WHERE contractor_id = ?`;
    const addPhones = byCount((rows) => `INSERT INTO ${n('contractor_phones')} (digits, contractor_id) VALUES ${placeholders(rows, 2)} ON CONFLICT DO NOTHING`);
    const addStatuses = byCount((rows) => `INSERT INTO ${n('contractor_statuses')} (name) VALUES ${placeholders(rows, 1)} ON CONFLICT DO NOTHING`);
    const figuresOf = bindContractorFigures(session, n);
    const refresh = bindContractorRefresh(session, n);
    // Edits are rendered at the flush, once per contractor however many touched it (see the documents projector).
    const toRefresh = new Set<number>();
    const flush = (budget: FlushBudget) => drainInChunks(toRefresh, budget, refresh);

    // New contractors above the highest id, and new statuses, wait here and go in a few statements together
    // (a batch of a hundred adds is one insert); they are written before any other event is handled, so
    // whatever reads these tables next (documents read a sale's contractor) finds them.
    const adding = new Map<number, { contractor: ContractorRecord; position: number }>();
    const statuses = new Set<string>();
    let top: { id: number; rank: number } | undefined;
    const row = (c: ContractorRecord, position: number, f: ContractorFigures) => [c.id, position, c.inn, nameKey(c.name), JSON.stringify(c), f.balance, f.bonusBalance, contractorJson(c, f)];
    const persist = async () => {
      top = undefined;
      if (adding.size > 0) {
        const rows = [...adding.values()];
        adding.clear();
        const figures = await figuresOf(rows.map((r) => r.contractor.id));
        await inChunks(rows, (chunk) =>
          session.run(
            insert(chunk.length),
            chunk.flatMap(({ contractor: c, position }) => row(c, position, figures.get(c.id) ?? NO_FIGURES)),
          ),
        );
        await writePhones(rows.map((r) => r.contractor));
      }
      if (statuses.size > 0) {
        const names = [...statuses];
        statuses.clear();
        await inChunks(names, (chunk) => session.run(addStatuses(chunk.length), chunk));
      }
    };
    const discard = () => {
      toRefresh.clear();
      adding.clear();
      statuses.clear();
      top = undefined;
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
    const add = async (c: ContractorRecord) => {
      top ??= (await positions.highest([])) ?? { id: 0, rank: 0 };
      if (c.id > top.id) {
        top = { id: c.id, rank: top.rank + 1 };
        adding.set(c.id, { contractor: c, position: top.rank });
        return;
      }
      // An id at or below the highest (an import, or the same event applied again) is placed among the rows.
      await persist();
      const { existing, rank: position } = await positions.place([], c.id, () => session.value<string>(recordOf, [c.id]));
      if (existing !== undefined) return save(c); // applying the same event twice changes nothing
      const f = (await figuresOf([c.id])).get(c.id) ?? NO_FIGURES;
      await session.run(insert(1), row(c, position, f));
      await writePhones([c]);
    };
    const edit = async (event: ContractorEvent) => {
      const waiting = adding.get(event.data.id);
      if (waiting !== undefined) waiting.contractor = evolveContractor(() => waiting.contractor, event)!;
      else {
        const current = JSON.parse((await session.value<string>(recordOf, [event.data.id]))!) as ContractorRecord;
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
          if (adding.size > 0 || statuses.size > 0) return persist();
          top = undefined;
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
function bindContractorFigures(session: SqlSession, n: TableNames): (ids: number[]) => Promise<Map<number, ContractorFigures>> {
  // Cast: PostgreSQL sums bigints as numeric, which would come back as text.
  const figures = byCount(
    (count) =>
      `SELECT contractor_id,
              CAST(coalesce(sum(CASE WHEN type IN (${CREDIT_TYPES}) THEN sum WHEN type IN (${DEBIT_TYPES}) THEN -sum ELSE 0 END), 0) AS BIGINT),
              CAST(coalesce(sum(CASE WHEN type = 'sale' THEN bonus_accrual WHEN type = 'bonus' THEN -sum ELSE 0 END), 0) AS BIGINT)
       FROM ${n('document_records')} WHERE contractor_id IN (${valueList(count)}) AND status = 1 GROUP BY contractor_id`,
  );
  return async (ids) => {
    const found = new Map<number, ContractorFigures>();
    await inChunks(ids, async (chunk) => {
      for (const [id, balance, bonusBalance] of await session.rows<[number, number, number]>(figures(chunk.length), chunk)) found.set(id, { balance, bonusBalance });
    });
    return found;
  };
}

const contractorJson = (c: ContractorRecord, f: ContractorFigures) => JSON.stringify(contractorView(c, f.balance, f.bonusBalance));

/** Recomputes contractors' figures and re-renders their JSON, a statement's worth of contractors at a time (ids unknown are skipped). */
export function bindContractorRefresh(session: SqlSession, n: TableNames): (ids: number[]) => Promise<void> {
  const recordsOf = byCount((count) => `SELECT id, record FROM ${n('contractors')} WHERE id IN (${valueList(count)})`);
  const figuresOf = bindContractorFigures(session, n);
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
