import { phoneDigits } from '../../lib/phone.ts';
import { type SqlSession, keyedRead } from '../../storage/sql.ts';
import type { ContractorRecord } from '../../records/contractor/events.ts';
import { idCount, idPage, pageLimit } from '../id-counts.ts';
import { nameKey } from '../../lib/name-key.ts';

// A page's first id from the counts, then the rows on from it in id order; the count is one seek.
const PAGING = { rows: 'contractors', counts: 'contractor_id_counts' };

const namesByIds = keyedRead<number, string | null>((list) => `SELECT id, record FROM contractors WHERE id IN (${list})`, (record) => (JSON.parse(record as string) as ContractorRecord).name);

/** The contractors' reads: pages, one contractor's JSON or record, and the lookups commands decide by. */
export function contractorQueries(session: SqlSession) {
  const page = {
    select: idPage(session.dialect, PAGING, 'SELECT id, json FROM contractors WHERE id >= (SELECT id FROM first_id) ORDER BY id'),
    allCount: idCount(PAGING),
  };
  return {
    page: (offset: number, limit: number) => session.joinedPage(page, { select: [offset, pageLimit(limit)], allCount: [] }),
    jsonById: (id: number) => session.value<string>('SELECT json FROM contractors WHERE id = ?', [id]),
    /** The JSON of the contractor with the lowest id among those with this inn (one statement: one round trip). */
    jsonByInn: (inn: string) =>
      session.value<string>('SELECT json FROM contractors WHERE id = (SELECT id FROM contractors WHERE inn = ? ORDER BY id LIMIT 1)', [inn]),
    /** The JSON of the contractor with the lowest id among those with this phone as phone1 or phone2, digits compared. */
    jsonByPhone: (phone: string) =>
      session.value<string>(
        'SELECT json FROM contractors WHERE id = (SELECT contractor_id FROM contractor_phones WHERE digits = ? ORDER BY contractor_id LIMIT 1)',
        [phoneDigits(phone)],
      ),
    async byId(id: number): Promise<ContractorRecord | undefined> {
      const json = await session.value<string>('SELECT record FROM contractors WHERE id = ?', [id]);
      return json === undefined ? undefined : JSON.parse(json);
    },
    /** One contractor's record and its JSON as the API shows it, in one statement; undefined when there is none. */
    async withJsonById(id: number): Promise<{ record: ContractorRecord; json: string } | undefined> {
      const [row] = await session.rows<[string, string]>('SELECT record, json FROM contractors WHERE id = ?', [id]);
      return row === undefined ? undefined : { record: JSON.parse(row[0]), json: row[1] };
    },
    /**
     * Up to `limit` contractors (their JSON, by name) whose name holds `part`, whatever its case. A part of a name
     * has no index to seek: the (name_key, id) index is read in name order until the page is full, then just
     * those rows are fetched.
     */
    byNamePart: async (part: string, limit: number) =>
      (
        await session.rows<[string]>(
          `SELECT c.json FROM (SELECT id, name_key FROM ${session.dialect.indexHint('contractors', 'contractors_name_key')} WHERE name_key LIKE ? ESCAPE '\\' ORDER BY name_key, id LIMIT ?) AS p
           JOIN contractors c ON c.id = p.id ORDER BY p.name_key, p.id`,
          [`%${nameKey(part)!.replace(/[\\%_]/g, (c) => `\\${c}`)}%`, limit],
        )
      ).map(([json]) => json),
    /** The contractors (their JSON, by id) with any of these ids. */
    jsonByIds: async (ids: number[]) =>
      ids.length === 0 ? [] : (await session.rows<[string]>(`SELECT json FROM contractors WHERE id IN (${ids.map(() => '?').join(', ')}) ORDER BY id`, ids)).map(([json]) => json),
    /** The ids of the contractors with this phone as phone1 or phone2, digits compared. */
    idsByPhone: async (phone: string, limit: number) =>
      (await session.rows<[number]>('SELECT contractor_id FROM contractor_phones WHERE digits = ? ORDER BY contractor_id LIMIT ?', [phoneDigits(phone), limit])).map(([id]) => id),
    /** The ids of the contractors named exactly this, whatever its case (a seek on the name index). */
    idsByName: async (name: string, limit: number) =>
      (await session.rows<[number]>('SELECT id FROM contractors WHERE name_key = ? ORDER BY id LIMIT ?', [nameKey(name.trim()), limit])).map(([id]) => id),
    /** The names of the contractors with these ids, by id (those without a name are null; unknown ids are left out). */
    namesByIds: (ids: number[]) => namesByIds(session, ids),
    /** The ids of the contractors with this inn. */
    idsByInn: async (inn: string, limit: number) => (await session.rows<[number]>('SELECT id FROM contractors WHERE inn = ? ORDER BY id LIMIT ?', [inn, limit])).map(([id]) => id),
  };
}
