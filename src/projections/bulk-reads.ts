import type { ProductRecord } from '../records/product/events.ts';
import type { BrandRecord } from '../records/brand/events.ts';
import type { CategoryRecord } from '../records/category/events.ts';
import type { ContractorRecord } from '../records/contractor/events.ts';
import type { DocumentRecord, DocumentRef, DocumentType } from '../records/document/events.ts';
import { type SqlSession, byCount, inChunks, keyedRead, valueList } from '../storage/sql.ts';

const parsed = <T>(json: unknown) => JSON.parse(json as string) as T;

const products = keyedRead<number, ProductRecord>((list) => `SELECT id, record FROM products WHERE id IN (${list})`, parsed);
const productsBySku = keyedRead<string, ProductRecord>((list) => `SELECT sku, record FROM products WHERE sku IN (${list})`, parsed);
const contractors = keyedRead<number, ContractorRecord>((list) => `SELECT id, record FROM contractors WHERE id IN (${list})`, parsed);
const statuses = keyedRead<string, string>((list) => `SELECT name, name FROM contractor_statuses WHERE name IN (${list})`, String);
const brands = byCount((count) => `SELECT id, name, logo FROM product_brands WHERE id IN (${valueList(count)})`);
const brandsByName = byCount((count) => `SELECT id, name, logo FROM product_brands WHERE name IN (${valueList(count)})`);
const categoriesByName = byCount((count) => `SELECT id, name, parent FROM product_categories WHERE name IN (${valueList(count)})`);
// The groups asked for and every group above them: UNION stops at a group already reached.
const categoriesUp = byCount(
  (count) => `WITH RECURSIVE up (id) AS (SELECT id FROM product_categories WHERE id IN (${valueList(count)})
     UNION SELECT c.parent FROM product_categories c JOIN up ON c.id = up.id WHERE c.parent <> 0)
   SELECT c.id, c.name, c.parent FROM product_categories c JOIN up ON c.id = up.id`,
);
// The documents asked for and every document their links reach, child to parent.
const documentsUp = byCount(
  (count) => `WITH RECURSIVE up (type, id) AS (SELECT type, id FROM document_records WHERE ${Array(count).fill('(type = ? AND id = ?)').join(' OR ')}
     UNION SELECT l.parent_type, l.parent_id FROM document_links l JOIN up ON l.child_type = up.type AND l.child_id = up.id)
   SELECT r.type, r.id, r.record FROM document_records r JOIN up ON r.type = up.type AND r.id = up.id`,
);
/** The tables whose highest id a decision may ask for (the next id of a new record), and how each is read. */
const HIGHEST = {
  products: 'SELECT coalesce(max(id), 0) FROM products',
  categories: 'SELECT coalesce(max(id), 0) FROM product_categories',
  brands: 'SELECT coalesce(max(id), 0) FROM product_brands',
  contractors: 'SELECT coalesce(max(id), 0) FROM contractors',
};
export type IdTable = keyof typeof HIGHEST;

/** Rows of a statement over many keys, a statement per hundred keys. */
async function rowsOf<K, Row extends object>(session: SqlSession, text: (count: number) => string, keys: K[], params: (chunk: K[]) => unknown[] = (chunk) => chunk): Promise<Row[]> {
  const found: Row[] = [];
  await inChunks(keys, async (chunk) => void found.push(...(await session.objects<Row>(text(chunk.length), params(chunk)))));
  return found;
}

/**
 * The read tables' records by many keys at once, one kind of lookup a call (`commands/lookups.ts`): what a
 * batch's records will read, fetched before any of them is decided. Each answers what it found; a key not
 * among them is not there.
 */
export function bulkReads(session: SqlSession) {
  return {
    products: (ids: number[]) => products(session, ids),
    productsBySku: (skus: string[]) => productsBySku(session, skus),
    categoriesWithAncestors: (ids: number[]) => rowsOf<number, CategoryRecord>(session, categoriesUp, ids),
    categoriesByName: (names: string[]) => rowsOf<string, CategoryRecord>(session, categoriesByName, names),
    brands: (ids: number[]) => rowsOf<number, BrandRecord>(session, brands, ids),
    brandsByName: (names: string[]) => rowsOf<string, BrandRecord>(session, brandsByName, names),
    contractors: (ids: number[]) => contractors(session, ids),
    existingContractorStatuses: async (names: string[]) => new Set((await statuses(session, names)).keys()),
    documentsWithBases: async (refs: DocumentRef[]) =>
      (await rowsOf<DocumentRef, { type: DocumentType; id: number; record: string }>(session, documentsUp, refs, (chunk) => chunk.flatMap((r) => [r.type, r.id]))).map(
        (row) => ({ type: row.type, id: Number(row.id), record: JSON.parse(row.record) as DocumentRecord }),
      ),
    highestIds: async (tables: IdTable[]) => {
      const [row] = await session.rows<unknown[]>(`SELECT ${tables.map((table) => `(${HIGHEST[table]})`).join(', ')}`);
      return new Map(tables.map((table, i) => [table, Number(row[i])]));
    },
  };
}

/** The bulk reads a batch's lookups are answered from. */
export type BulkReads = ReturnType<typeof bulkReads>;
