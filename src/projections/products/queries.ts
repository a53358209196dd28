import { type SqlSession, keyedRead } from '../../storage/sql.ts';
import type { ProductRecord } from '../../records/product/events.ts';
import { idCount, idPage, pageLimit } from '../id-counts.ts';

// A page's first id from the counts, then the rows on from it in id order; the count is one seek.
const PAGING = { rows: 'products', counts: 'product_id_counts' };

const namesByIds = keyedRead<number, string>((list) => `SELECT id, record FROM products WHERE id IN (${list})`, (record) => (JSON.parse(record as string) as ProductRecord).name);

/** The products' reads: pages, one product's JSON or record, and the lookups commands decide by. */
export function productQueries(session: SqlSession) {
  const page = {
    select: idPage(session.dialect, PAGING, 'SELECT id, list_json AS json FROM products WHERE id >= (SELECT id FROM first_id) ORDER BY id'),
    allCount: idCount(PAGING),
  };
  return {
    page: (offset: number, limit: number) => session.joinedPage(page, { select: [offset, pageLimit(limit)], allCount: [] }),
    fullJsonById: (id: number) => session.value<string>('SELECT full_json FROM products WHERE id = ?', [id]),
    fullJsonBySku: (sku: string) => session.value<string>('SELECT full_json FROM products WHERE sku = ?', [sku]),
    async byId(id: number): Promise<ProductRecord | undefined> {
      const json = await session.value<string>('SELECT record FROM products WHERE id = ?', [id]);
      return json === undefined ? undefined : JSON.parse(json);
    },
    /** The names of the products with these ids, by id (unknown ids are left out). */
    namesByIds: (ids: number[]) => namesByIds(session, ids),
    idBySku: (sku: string) => session.value<number>('SELECT id FROM products WHERE sku = ?', [sku]),
  };
}
