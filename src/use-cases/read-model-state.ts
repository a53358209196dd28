import type { CommandState } from '../commands/command-state.ts';
import type { brandQueries } from '../projections/brands.ts';
import type { categoryQueries } from '../projections/categories.ts';
import type { contractorQueries } from '../projections/contractors/queries.ts';
import type { documentQueries } from '../projections/documents/queries.ts';
import type { productQueries } from '../projections/products/queries.ts';
import type { AsyncReads } from '../storage/async-reads.ts';

/** The read queries of every read model, on one session. */
export interface ReadQueries {
  products: ReturnType<typeof productQueries>;
  categories: ReturnType<typeof categoryQueries>;
  brands: ReturnType<typeof brandQueries>;
  contractors: ReturnType<typeof contractorQueries>;
  documents: ReturnType<typeof documentQueries>;
}

/**
 * The state commands decide on, read from the inline read tables. Read inside the write transaction,
 * it is exactly the state the log describes, including earlier records of the same batch.
 */
export function readModelState({ products, categories, brands, contractors, documents }: ReadQueries): AsyncReads<CommandState> {
  return {
    product: products.byId,
    productIdBySku: products.idBySku,
    nextProductId: async () => (await products.maxId()) + 1,
    category: categories.byId,
    categoryIdBySiblingName: categories.idBySiblingName,
    nextCategoryId: async () => (await categories.maxId()) + 1,
    brand: brands.byId,
    brandIdByName: brands.idByName,
    nextBrandId: async () => (await brands.maxId()) + 1,
    contractor: contractors.byId,
    nextContractorId: async () => (await contractors.maxId()) + 1,
    contractorStatusExists: contractors.statusExists,
    document: documents.byId,
  };
}
