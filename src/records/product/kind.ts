import type { ProductState } from './deciders.ts';
import { type ProductRecord, productEvents, productUpcasters } from './events.ts';
import { evolveProduct } from './evolve.ts';
import { lookup, recordKind } from '../kind.ts';

const skuKey = (sku: string) => `sku\u0000${sku}`;

/** Products: by id and by sku (who holds a sku, and that product); ids counted in `products`. */
export const product = recordKind({
  events: productEvents,
  upcasters: productUpcasters,
  evolve: evolveProduct,
  idTable: 'products',
  uniqueKey: (record: ProductRecord) => skuKey(record.sku),
  lookups: {
    /** Products by id. */
    products: lookup<number>(async (source, ids, answers) => {
      const found = await source.products(ids);
      for (const id of ids) answers.set('products', id, found.get(id));
    }),
    /** Products by sku: who holds the sku, and that product. */
    productSkus: lookup<string>(async (source, skus, answers) => {
      const found = await source.productsBySku(skus);
      for (const sku of skus) {
        const held = found.get(sku);
        answers.set('productSkus', sku, held?.id);
        if (held !== undefined) answers.set('products', held.id, held);
      }
    }),
  },
  state: ({ answers, overlay, nextId }): ProductState => ({
    product: (id) => overlay.record<ProductRecord>(`product-${id}`) ?? answers.get('products', id),
    productIdBySku: (sku) => (overlay.owner(skuKey(sku)) ?? { id: answers.get<number | undefined>('productSkus', sku) }).id,
    nextProductId: () => nextId('products'),
  }),
  current: (state: ProductState, event) => state.product(event.data.id),
});
