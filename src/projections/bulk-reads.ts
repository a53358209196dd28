import type { ProductRecord } from '../events/catalogue.ts';
import type { ContractorRecord } from '../events/contractors.ts';
import type { Sqlite } from '../storage/sqlite/open.ts';
import { inChunks, statementsByCount, valueList } from '../storage/sqlite/statements.ts';

/** `SELECT key, value … WHERE key IN (…)` over any number of keys, a statement per hundred (a batch: one). */
function keyedRead<K, V>(db: Sqlite, sql: (list: string) => string, decode: (value: unknown) => V): (keys: K[]) => Map<K, V> {
  const statement = statementsByCount(db, (n) => sql(valueList(n)), (s) => s.raw());
  return (keys) => {
    const found = new Map<K, V>();
    inChunks(keys, (chunk) => {
      for (const [key, value] of statement(chunk.length).all(chunk) as [K, unknown][]) found.set(key, decode(value));
    });
    return found;
  };
}

const parsed = <T>(json: unknown) => JSON.parse(json as string) as T;

/** The read tables' records by many keys at once: what a batch's commands will ask for, read before they are decided. */
export function bulkReads(db: Sqlite) {
  const statuses = keyedRead<string, string>(db, (list) => `SELECT name, name FROM contractor_statuses WHERE name IN (${list})`, String);
  return {
    products: keyedRead<number, ProductRecord>(db, (list) => `SELECT id, record FROM products WHERE id IN (${list})`, parsed),
    productsBySku: keyedRead<string, ProductRecord>(db, (list) => `SELECT sku, record FROM products WHERE sku IN (${list})`, parsed),
    contractors: keyedRead<number, ContractorRecord>(db, (list) => `SELECT id, record FROM contractors WHERE id IN (${list})`, parsed),
    existingContractorStatuses: (names: string[]) => new Set(statuses(names).keys()),
  };
}
