import type { ProductRecord } from '../events/catalogue.ts';
import type { ContractorRecord } from '../events/contractors.ts';
import { type SqlSession, keyedRead } from '../storage/sql.ts';

const parsed = <T>(json: unknown) => JSON.parse(json as string) as T;

const products = keyedRead<number, ProductRecord>((list) => `SELECT id, record FROM products WHERE id IN (${list})`, parsed);
const productsBySku = keyedRead<string, ProductRecord>((list) => `SELECT sku, record FROM products WHERE sku IN (${list})`, parsed);
const contractors = keyedRead<number, ContractorRecord>((list) => `SELECT id, record FROM contractors WHERE id IN (${list})`, parsed);
const statuses = keyedRead<string, string>((list) => `SELECT name, name FROM contractor_statuses WHERE name IN (${list})`, String);

/** The read tables' records by many keys at once: what a batch's commands will ask for, read before they are decided. */
export function bulkReads(session: SqlSession) {
  return {
    products: (ids: number[]) => products(session, ids),
    productsBySku: (skus: string[]) => productsBySku(session, skus),
    contractors: (ids: number[]) => contractors(session, ids),
    existingContractorStatuses: async (names: string[]) => new Set((await statuses(session, names)).keys()),
  };
}
