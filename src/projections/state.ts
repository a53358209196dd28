import type { CommandState } from '../commands/command-state.ts';
import type { Sqlite } from '../db/open.ts';
import { brandQueries } from './brands.ts';
import { categoryQueries } from './categories.ts';
import { contractorQueries } from './contractors.ts';
import { documentQueries } from './documents.ts';
import { productQueries } from './products.ts';

/**
 * The state commands decide on, read from the inline read tables. Read inside the write transaction,
 * it is exactly the state the log describes, including earlier records of the same batch.
 */
export function readModelState(db: Sqlite): CommandState {
  const products = productQueries(db);
  const categories = categoryQueries(db);
  const brands = brandQueries(db);
  const contractors = contractorQueries(db);
  const documents = documentQueries(db);
  return {
    product: products.byId,
    productIdBySku: products.idBySku,
    nextProductId: () => products.maxId() + 1,
    category: categories.byId,
    categoryIdBySiblingName: categories.idBySiblingName,
    nextCategoryId: () => categories.maxId() + 1,
    brand: brands.byId,
    brandIdByName: brands.idByName,
    nextBrandId: () => brands.maxId() + 1,
    contractor: contractors.byId,
    nextContractorId: () => contractors.maxId() + 1,
    contractorStatusExists: contractors.statusExists,
    document: documents.byId,
  };
}
