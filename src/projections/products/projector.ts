import type { Sqlite } from '../../storage/sqlite/open.ts';
import type { ProductRecord } from '../../events/catalogue.ts';
import type { StoredEvent } from '../../events/store.ts';
import { denseRank } from '../dense-rank.ts';
import { placeholders, statementsByCount, valueList } from '../../storage/sqlite/statements.ts';
import { type FlushBudget, type Projector, type TableNames, drainInChunks } from '../projector.ts';
import { type Named, SERVICE_CATEGORY, productFullJson, productListView } from './views.ts';

/**
 * Products with their response JSON kept ready (list and single read), so a page is a concatenation
 * of stored strings. `position` is the product's 1-based rank in id order: a page at any offset is an
 * index range scan, not an O(offset) skip.
 */
export const productsProjector: Projector = {
  name: 'products',
  version: 1,
  // Its views show the brand's and the group's names.
  after: ['brands', 'categories'],
  tables: ['products'],
  schema: (n) => [
    `CREATE TABLE ${n('products')} (
       id INTEGER PRIMARY KEY,
       sku TEXT NOT NULL UNIQUE,
       position INTEGER NOT NULL,
       category_id INTEGER NOT NULL,
       brand_id INTEGER,
       record TEXT NOT NULL,
       list_json TEXT NOT NULL,
       full_json TEXT NOT NULL)`,
    // The products of a renamed brand or group are re-rendered.
    `CREATE INDEX ${n('products_brand')} ON ${n('products')} (brand_id)`,
    `CREATE INDEX ${n('products_category')} ON ${n('products')} (category_id)`,
  ],
  readIndexes: (n) => [`CREATE INDEX ${n('products_position')} ON ${n('products')} (position)`],
  bind(db: Sqlite, n: TableNames) {
    const recordOf = db.prepare(`SELECT record FROM ${n('products')} WHERE id = ?`).pluck();
    const byId = (id: number) => JSON.parse(recordOf.get(id) as string) as ProductRecord;
    const brandName = db.prepare(`SELECT name FROM ${n('product_brands')} WHERE id = ?`).pluck();
    const categoryName = db.prepare(`SELECT name FROM ${n('product_categories')} WHERE id = ?`).pluck();
    const positions = denseRank(db, { table: n('products'), rank: 'position' });
    const insert = db.prepare(
      `INSERT INTO ${n('products')} (id, sku, position, category_id, brand_id, record, list_json, full_json)
       VALUES (@id, @sku, @position, @categoryId, @brandId, @record, @list, @full)`,
    );
    const update = db.prepare(
      `UPDATE ${n('products')} SET sku = @sku, category_id = @categoryId, brand_id = @brandId, record = @record, list_json = @list, full_json = @full
       WHERE id = @id`,
    );
    // Many rows' record and views at once, a statement per hundred (a batch of price updates is one).
    const updateViews = statementsByCount(
      db,
      (rows) =>
        `WITH v (id, record, list_json, full_json) AS (VALUES ${placeholders(rows, 4)})
         UPDATE ${n('products')} SET record = v.record, list_json = v.list_json, full_json = v.full_json FROM v WHERE ${n('products')}.id = v.id`,
    );
    const recordsOf = statementsByCount(db, (count) => `SELECT id, record FROM ${n('products')} WHERE id IN (${valueList(count)})`, (statement) => statement.raw());
    const exists = db.prepare(`SELECT 1 FROM ${n('products')} WHERE id = ?`).pluck();
    const idsByBrand = db.prepare(`SELECT id FROM ${n('products')} WHERE brand_id = ?`).pluck();
    const idsByCategory = db.prepare(`SELECT id FROM ${n('products')} WHERE category_id = ?`).pluck();

    // Changes not yet written to a product's row, by id: a product is rendered and written once per flush,
    // however many price updates it had since (a rebuild flushes once, so a million updates of a hundred
    // thousand products render a hundred thousand times). An entry also marks a row whose views are not rendered yet.
    const unwritten = new Map<number, Partial<ProductRecord>>();
    const load = (id: number): ProductRecord => {
      const changes = unwritten.get(id);
      unwritten.delete(id); // the caller writes the whole record now
      return { ...byId(id), ...changes };
    };
    // Brand and group names read since the last flush (a rebuild's flush renders every product with a few reads);
    // a rename drops its entry and re-renders the products at the flush.
    const brands = new Map<number, Named>();
    const categories = new Map<number, Named>([[0, SERVICE_CATEGORY]]);
    const named = (names: Map<number, Named>, id: number, lookup: typeof brandName) => {
      let found = names.get(id);
      if (found === undefined) names.set(id, (found = { id, name: lookup.get(id) as string }));
      return found;
    };
    const render = (p: ProductRecord) => {
      const brand = p.brandId === null ? null : named(brands, p.brandId, brandName);
      const category = named(categories, p.categoryId, categoryName);
      const list = JSON.stringify(productListView(p, brand, category));
      return { id: p.id, sku: p.sku, categoryId: p.categoryId, brandId: p.brandId, record: JSON.stringify(p), list, full: productFullJson(list, p) };
    };
    const save = (p: ProductRecord) => update.run(render(p));
    const add = (p: ProductRecord) => {
      const { existing, rank: position } = positions.place([], p.id, () => exists.get(p.id));
      if (existing !== undefined) {
        unwritten.delete(p.id);
        return save(p); // applying the same event twice changes nothing
      }
      // The row exists now (positions and lookups need it); its views are rendered at the flush.
      insert.run({ id: p.id, sku: p.sku, categoryId: p.categoryId, brandId: p.brandId, record: JSON.stringify(p), list: '', full: '', position });
      unwritten.set(p.id, {});
    };
    // A renamed brand or group shows in its products' views: render them at the flush, with the name as it is then.
    const rerender = (ids: number[]) => ids.forEach((id) => unwritten.has(id) || unwritten.set(id, {}));
    // Nothing outlives a flush, so a rolled-back transaction leaves nothing behind for the next one.
    const discard = () => {
      unwritten.clear();
      brands.clear();
      categories.clear();
      categories.set(0, SERVICE_CATEGORY);
    };
    const flush = (budget: FlushBudget) => {
      // Prices touch no indexed column: rewriting only the record and its views spares the sku, brand and group
      // indexes. A hundred products at a time: their records read with one statement, written with another.
      const done = drainInChunks(unwritten, budget, (ids) => {
        const stored = new Map((recordsOf(ids.length).all(ids) as [number, string][]).map(([id, json]) => [id, JSON.parse(json) as ProductRecord]));
        updateViews(ids.length).run(
          ids.flatMap((id) => {
            const { record, list, full } = render({ ...stored.get(id)!, ...unwritten.get(id) });
            return [id, record, list, full];
          }),
        );
      });
      if (done) discard();
      return done;
    };

    const handle = (event: StoredEvent) => {
      switch (event.type) {
        case 'ProductAdded':
          add(event.data);
          break;
        case 'ProductEdited':
          save({ ...load(event.data.id), ...event.data.changes });
          break;
        case 'ProductPricesUpdated': {
          // Merged into the product's unwritten changes in place: they live until the flush, and a fresh
          // object per update would pile up as old-generation garbage over a long rebuild.
          const changes = unwritten.get(event.data.id);
          if (changes === undefined) unwritten.set(event.data.id, { ...event.data.changes });
          else Object.assign(changes, event.data.changes);
          break;
        }
        case 'BrandEdited':
          if (event.data.name === undefined) break;
          brands.delete(event.data.id);
          rerender(idsByBrand.all(event.data.id) as number[]);
          break;
        case 'CategoryEdited':
          if (event.data.name === undefined) break;
          categories.delete(event.data.id);
          rerender(idsByCategory.all(event.data.id) as number[]);
          break;
      }
    };
    return Object.assign(handle, { flush, discard });
  },
};
