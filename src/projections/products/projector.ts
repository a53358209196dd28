import type { ProductRecord } from '../../records/product/events.ts';
import { evolveProduct } from '../../records/product/evolve.ts';
import { nameWords } from '../../lib/name-key.ts';
import { idCountsTable } from '../id-counts.ts';
import type { RecordReadModel } from '../read-model.ts';
import { recordProjector } from '../row-writer.ts';
import { SERVICE_CATEGORY, productFullJson, productListView } from './views.ts';

/**
 * Products with their response JSON kept ready (list and single read), so a page is a concatenation
 * of stored strings. `product_id_counts` counts the ids in nested ranges (`id-counts.ts`): a page at any
 * offset finds its first id in a few seeks and reads on in id order, and a product added below the highest
 * id changes nine counts, never the rows after it. `product_name_words` holds each word of a product's name
 * (`nameWords`) beside the whole name: a search by the start of a word is a range of its key, the rest of what
 * was typed checked against the name in the same rows, never the wide product rows. Its rows are derived from
 * the record, replaced by an edit; price updates (patches) never touch them.
 */
const productsModel: RecordReadModel<ProductRecord> = {
  name: 'products',
  version: 3,
  // Its views show the brand's and the group's names.
  after: ['brands', 'categories'],
  tables: ['products', 'product_id_counts', 'product_name_words'],
  schema: (n, { types: t, clusteredTableSuffix }) => [
    `CREATE TABLE ${n('products')} (
       id ${t.integer} PRIMARY KEY,
       sku ${t.text} NOT NULL UNIQUE,
       category_id ${t.integer} NOT NULL,
       brand_id ${t.integer},
       record ${t.text} NOT NULL,
       list_json ${t.text} NOT NULL,
       full_json ${t.text} NOT NULL)`,
    // The products of a renamed brand or group are re-rendered.
    `CREATE INDEX ${n('products_brand')} ON ${n('products')} (brand_id)`,
    `CREATE INDEX ${n('products_category')} ON ${n('products')} (category_id)`,
    idCountsTable(n('product_id_counts'), [], { types: t, clusteredTableSuffix }),
    `CREATE TABLE ${n('product_name_words')} (
       word ${t.text} NOT NULL,
       product_id ${t.integer} NOT NULL,
       name ${t.text} NOT NULL,
       PRIMARY KEY (word, product_id))${clusteredTableSuffix}`,
    // An edited product's words are replaced by its id.
    `CREATE INDEX ${n('product_name_words_product')} ON ${n('product_name_words')} (product_id)`,
  ],
  readIndexes: () => [],
  records: {
    table: 'products',
    stored: { id: 'integer', sku: 'text', category_id: 'integer', brand_id: 'integer', record: 'text' },
    row: (p) => [p.id, p.sku, p.categoryId, p.brandId, JSON.stringify(p)],
    unique: (p) => [p.sku],
    read: { columns: ['record'], record: ([json]) => JSON.parse(json as string) as ProductRecord },
    rendered: { list_json: 'text', full_json: 'text' },
    // Prices touch no indexed column: the flush rewrites only the record and its views, sparing the sku, brand and group indexes.
    patch: (p, changes) => evolveProduct(() => p, { type: 'ProductEdited', data: { id: p.id, changes } })!,
    pagedBy: 'product_id_counts',
  },
  children: [
    {
      table: 'product_name_words',
      parent: ['product_id'],
      parentKey: (p) => [p.id],
      columns: { word: 'text', product_id: 'integer', name: 'text' },
      key: ['word', 'product_id'],
      rows: (p) => nameWords(p.name).map((word) => [word, p.id, p.name]),
    },
  ],
  on: {
    ProductAdded: (event, products) => products.add(evolveProduct(() => undefined, event)!),
    ProductEdited: (event, products) => products.edit(event.data.id, (current) => evolveProduct(() => current, event)),
    // Most of a long log: merged into the product's pending changes, rendered once at the flush.
    ProductPricesUpdated: (event, products) => products.patch(event.data.id, event.data.changes),
    // A renamed brand or group shows in its products' views: they are rendered again with the name as it is then.
    BrandEdited: (event, products) => (event.data.name === undefined ? undefined : products.rerenderWhere('brand_id', event.data.id, 'brand')),
    CategoryEdited: (event, products) => (event.data.name === undefined ? undefined : products.rerenderWhere('category_id', event.data.id, 'category')),
  },
  adds: ['ProductAdded'],
  lookups: {
    brand: { table: 'product_brands', column: 'name', of: (p) => p.brandId ?? undefined },
    category: { table: 'product_categories', column: 'name', of: (p) => (p.categoryId === SERVICE_CATEGORY.id ? undefined : p.categoryId) },
  },
  async render(products, context) {
    const rows: string[][] = [];
    for (const p of products) {
      const brand = p.brandId === null ? null : { id: p.brandId, name: (await context.lookup('brand', p.brandId)) as string };
      const category = p.categoryId === SERVICE_CATEGORY.id ? SERVICE_CATEGORY : { id: p.categoryId, name: (await context.lookup('category', p.categoryId)) as string };
      const list = JSON.stringify(productListView(p, brand, category));
      rows.push([list, productFullJson(list, p)]);
    }
    return rows;
  },
};

export const productsProjector = recordProjector(productsModel);
