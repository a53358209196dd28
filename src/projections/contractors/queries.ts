import { phoneDigits } from '../../lib/phone.ts';
import type { ReadModelDialect } from '../../storage/dialect.ts';
import type { Sqlite } from '../../storage/sqlite/open.ts';
import type { ContractorRecord } from '../../events/contractors.ts';
import { joinedPageQuery } from '../joined-page.ts';

/** The contractors' reads: pages, one contractor's JSON or record, and the lookups commands decide by. */
export function contractorQueries(db: Sqlite, dialect: ReadModelDialect) {
  // Positions are dense 1..n, so the highest one is the count, read from the index in O(log n).
  const page = joinedPageQuery(
    db,
    dialect,
    'SELECT json FROM contractors WHERE position > @offset ORDER BY position LIMIT @limit',
    'SELECT coalesce(max(position), 0) FROM contractors',
  );
  const jsonById = db.prepare('SELECT json FROM contractors WHERE id = ?').pluck();
  const idByInn = db.prepare('SELECT id FROM contractors WHERE inn = ? ORDER BY id LIMIT 1').pluck();
  const idByPhone = db.prepare('SELECT contractor_id FROM contractor_phones WHERE digits = ? ORDER BY contractor_id LIMIT 1').pluck();
  const recordById = db.prepare('SELECT record FROM contractors WHERE id = ?').pluck();
  const maxId = db.prepare('SELECT coalesce(max(id), 0) FROM contractors').pluck();
  const status = db.prepare('SELECT 1 FROM contractor_statuses WHERE name = ?').pluck();
  return {
    page: (offset: number, limit: number) => page({ offset, limit }),
    jsonById: (id: number) => jsonById.get(id) as string | undefined,
    /** The lowest id among the contractors with this inn. */
    idByInn: (inn: string) => idByInn.get(inn) as number | undefined,
    /** The lowest id among the contractors with this phone as phone1 or phone2, digits compared. */
    idByPhone: (phone: string) => idByPhone.get(phoneDigits(phone)) as number | undefined,
    byId(id: number): ContractorRecord | undefined {
      const json = recordById.get(id) as string | undefined;
      return json === undefined ? undefined : JSON.parse(json);
    },
    maxId: () => maxId.get() as number,
    statusExists: (name: string) => status.get(name) !== undefined,
  };
}
