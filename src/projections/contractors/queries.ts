import { phoneDigits } from '../../lib/phone.ts';
import type { SqlSession } from '../../storage/sql.ts';
import type { ContractorRecord } from '../../events/contractors.ts';
import { firstIdOfPage, idCount } from '../id-counts.ts';

// A page's first id from the counts, then the rows on from it in id order; the count is one seek.
const PAGING = { rows: 'contractors', counts: 'contractor_id_counts' };
const PAGE = {
  select: `${firstIdOfPage(PAGING)} SELECT json FROM contractors WHERE id >= (SELECT id FROM first_id) ORDER BY id LIMIT CAST(? AS BIGINT)`,
  allCount: idCount(PAGING),
};

/** The contractors' reads: pages, one contractor's JSON or record, and the lookups commands decide by. */
export function contractorQueries(session: SqlSession) {
  return {
    page: (offset: number, limit: number) => session.joinedPage(PAGE, { select: [offset, limit], allCount: [] }),
    jsonById: (id: number) => session.value<string>('SELECT json FROM contractors WHERE id = ?', [id]),
    /** The lowest id among the contractors with this inn. */
    idByInn: (inn: string) => session.value<number>('SELECT id FROM contractors WHERE inn = ? ORDER BY id LIMIT 1', [inn]),
    /** The lowest id among the contractors with this phone as phone1 or phone2, digits compared. */
    idByPhone: (phone: string) =>
      session.value<number>('SELECT contractor_id FROM contractor_phones WHERE digits = ? ORDER BY contractor_id LIMIT 1', [phoneDigits(phone)]),
    async byId(id: number): Promise<ContractorRecord | undefined> {
      const json = await session.value<string>('SELECT record FROM contractors WHERE id = ?', [id]);
      return json === undefined ? undefined : JSON.parse(json);
    },
    maxId: async () => (await session.value<number>('SELECT coalesce(max(id), 0) FROM contractors'))!,
    statusExists: async (name: string) => (await session.value('SELECT 1 FROM contractor_statuses WHERE name = ?', [name])) !== undefined,
  };
}
