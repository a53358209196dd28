import { ROWS_PER_STATEMENT, type SqlSession, byCount, placeholders, valueList } from '../../storage/sql.ts';
import type { ProductRecord } from '../../records/product/events.ts';
import { type ProductEvent, evolveProduct } from '../../records/product/evolve.ts';
import type { StoredEvent } from '../../events/rows.ts';
import { nameWords } from '../../lib/name-key.ts';
import { idCounts, idCountsTable } from '../id-counts.ts';
import { newIds } from '../new-ids.ts';
import { rowsKeptBack } from '../rows-kept-back.ts';
import { type ApplyMode, type FlushBudget, type Projector, type TableNames, drainReadingAhead, inIdOrder } from '../projector.ts';
import { type Named, SERVICE_CATEGORY, productFullJson, productListView } from './views.ts';

/**
 * Products with their response JSON kept ready (list and single read), so a page is a concatenation
 * of stored strings. `product_id_counts` counts the ids in nested ranges (`id-counts.ts`): a page at any
 * offset finds its first id in a few seeks and reads on in id order, and a product added below the highest
 * id changes nine counts, never the rows after it. `product_name_words` holds each word of a product's name
 * (`nameWords`) beside the whole name: a search by the start of a word is a range of its key, the rest of what
 * was typed checked against the name in the same rows, never the wide product rows. It
 * changes only with a name, so price updates never touch it.
 */
export const productsProjector: Projector = {
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
  ],
  countedIds: [{ rows: 'products', counts: 'product_id_counts' }],
  readIndexes: () => [],
  bind(session: SqlSession, n: TableNames, mode: ApplyMode) {
    const recordOf = `SELECT record FROM ${n('products')} WHERE id = ?`;
    const brandName = `SELECT name FROM ${n('product_brands')} WHERE id = ?`;
    const categoryName = `SELECT name FROM ${n('product_categories')} WHERE id = ?`;
    const counts = idCounts(session, n('product_id_counts'), [], mode);
    const known = newIds(session, n('products'), [], mode);
    const insert = byCount(
      (rows) => `INSERT INTO ${n('products')} (id, sku, category_id, brand_id, record, list_json, full_json) VALUES ${placeholders(rows, 7)}`,
    );
    const update = `UPDATE ${n('products')} SET sku = ?, category_id = ?, brand_id = ?, record = ?, list_json = ?, full_json = ? WHERE id = ?`;
    // Many rows' record and views at once, a statement per hundred (a batch of price updates is one).
    const updateViews = byCount(
      (rows) =>
        `WITH v (id, record, list_json, full_json) AS (VALUES ${session.dialect.typedRows(rows, ['integer', 'text', 'text', 'text'])})
         UPDATE ${n('products')} SET record = v.record, list_json = v.list_json, full_json = v.full_json FROM v WHERE ${n('products')}.id = v.id`,
    );
    const recordsOf = byCount((count) => `SELECT id, record FROM ${n('products')} WHERE id IN (${valueList(count)})`);
    const idsByBrand = `SELECT id FROM ${n('products')} WHERE brand_id = ?`;
    const idsByCategory = `SELECT id FROM ${n('products')} WHERE category_id = ?`;
    const addWords = byCount((rows) => `INSERT INTO ${n('product_name_words')} (word, product_id, name) VALUES ${placeholders(rows, 3)}`);
    const dropWord = `DELETE FROM ${n('product_name_words')} WHERE word = ? AND product_id = ?`;

    // New products wait here and go a hundred a statement (a batch of adds is one insert, in any id order): they
    // are written before this projector reads its table, and at `persist` (the end of every apply and replayed
    // chunk), with the counts they changed. No other projector reads products.
    const adding = rowsKeptBack(session, insert, (a, b) => (a[0] as number) - (b[0] as number));
    // A new name's words, kept back like the rows and inserted in word order.
    const words = rowsKeptBack(session, addWords, (a, b) => (a[0] === b[0] ? (a[1] as number) - (b[1] as number) : (a[0] as string) < (b[0] as string) ? -1 : 1));
    const addWordsOf = (p: ProductRecord) => nameWords(p.name).forEach((word) => words.add([word, p.id, p.name]));
    /** A product renamed: the old name's words dropped (by their keys), the new name's added. */
    const renamed = async (before: ProductRecord, after: ProductRecord) => {
      if (before.name === after.name) return;
      await words.write();
      for (const word of nameWords(before.name)) await session.run(dropWord, [word, before.id]);
      addWordsOf(after);
    };
    const persist = async () => {
      await adding.write();
      await words.write();
      await counts.persist();
      known.forget();
    };

    const byId = async (id: number) => {
      await adding.write();
      return JSON.parse((await session.value<string>(recordOf, [id]))!) as ProductRecord;
    };
    const ids = async (text: string, id: number) => {
      await adding.write();
      return (await session.rows<[number]>(text, [id])).map(([found]) => found);
    };

    // Changes not yet written to a product's row, by id: a product is rendered and written once per flush,
    // however many price updates it had since (a rebuild flushes once, so a million updates of a hundred
    // thousand products render a hundred thousand times). An entry also marks a row whose views are not rendered yet.
    const unwritten = new Map<number, Partial<ProductRecord>>();
    // The changes kept since the last flush are one edit's, folded into the stored record as such.
    const withUnwritten = (stored: ProductRecord) =>
      evolveProduct(() => stored, { type: 'ProductEdited', data: { id: stored.id, changes: unwritten.get(stored.id) ?? {} } })!;
    const load = async (id: number): Promise<ProductRecord> => {
      const current = withUnwritten(await byId(id));
      unwritten.delete(id); // the caller writes the whole record now
      return current;
    };
    // Brand and group names read since the last flush (a rebuild's flush renders every product with a few reads);
    // a rename drops its entry and re-renders the products at the flush.
    const brands = new Map<number, Named>();
    const categories = new Map<number, Named>([[0, SERVICE_CATEGORY]]);
    const named = async (names: Map<number, Named>, id: number, lookup: string) => {
      let found = names.get(id);
      if (found === undefined) names.set(id, (found = { id, name: (await session.value<string>(lookup, [id]))! }));
      return found;
    };
    const render = async (p: ProductRecord) => {
      const brand = p.brandId === null ? null : await named(brands, p.brandId, brandName);
      const category = await named(categories, p.categoryId, categoryName);
      const list = JSON.stringify(productListView(p, brand, category));
      return { record: JSON.stringify(p), list, full: productFullJson(list, p) };
    };
    const save = async (p: ProductRecord) => {
      const { record, list, full } = await render(p);
      await session.run(update, [p.sku, p.categoryId, p.brandId, record, list, full, p.id]);
    };
    const add = async (p: ProductRecord) => {
      if (!(await known.isNew([], p.id))) {
        // Applying the same event twice changes nothing.
        await renamed(await load(p.id), p);
        return save(p);
      }
      // Live, and in a build above every id so far, a new product is rendered as it is added, with the names as they
      // are now, and written once (only a product a later event changes is rendered again at the flush): live, a
      // narrow row rewritten at the flush would cost PostgreSQL a second version of the row and of its index
      // entries. In a build, a product below the highest takes the narrow path below instead: on SQLite wide rows
      // inserted all over the table split its pages, where narrow ones rewritten in id order at the flush stay on
      // neighbouring pages (both measured in docs/performance.md).
      const renderedNow = mode === 'live' || (await known.above([], p.id));
      known.add([], p.id);
      counts.add([], p.id);
      addWordsOf(p);
      if (renderedNow) {
        // Written a statement's worth at a time: rows this wide kept back for a whole transaction outlived the young generation.
        const { record, list, full } = await render(p);
        adding.add([p.id, p.sku, p.categoryId, p.brandId, record, list, full]);
        if (adding.size() >= ROWS_PER_STATEMENT) await adding.write();
        return;
      }
      // The row exists from now on (lookups need it); its views are rendered at the build's flush.
      adding.add([p.id, p.sku, p.categoryId, p.brandId, JSON.stringify(p), '', '']);
      unwritten.set(p.id, {});
    };
    // A renamed brand or group shows in its products' views: render them at the flush, with the name as it is then.
    const rerender = (ids: number[]) => ids.forEach((id) => unwritten.has(id) || unwritten.set(id, {}));
    // Nothing outlives a flush, so a rolled-back transaction leaves nothing behind for the next one.
    const discard = () => {
      adding.discard();
      words.discard();
      counts.discard();
      known.forget();
      unwritten.clear();
      brands.clear();
      categories.clear();
      categories.set(0, SERVICE_CATEGORY);
    };
    const flush = async (budget: FlushBudget) => {
      // Prices touch no indexed column: rewriting only the record and its views spares the sku, brand and group
      // indexes. A hundred products at a time: their records read with one statement, written with another.
      await adding.write();
      inIdOrder(unwritten);
      const read = (ids: number[]) => session.rows<[number, string]>(recordsOf(ids.length), ids);
      const done = await drainReadingAhead(unwritten, budget, read, async (ids, found) => {
        const stored = new Map(found.map(([id, json]) => [id, JSON.parse(json) as ProductRecord]));
        const rows: unknown[] = [];
        for (const id of ids) {
          const { record, list, full } = await render(withUnwritten(stored.get(id)!));
          rows.push(id, record, list, full);
        }
        await session.run(updateViews(ids.length), rows);
      });
      if (done) discard();
      return done;
    };

    const edit = async (event: ProductEvent) => {
      const current = await load(event.data.id);
      const edited = evolveProduct(() => current, event)!;
      await renamed(current, edited);
      return save(edited);
    };
    /** A renamed brand or group: its products are rendered again at the flush. */
    const brandOrGroupRenamed = async (names: Map<number, Named>, id: number, idsOf: string) => {
      names.delete(id);
      rerender(await ids(idsOf, id));
    };

    // Not async: a price update, most of a long log, is only remembered, with no promise made for it.
    const handle = (event: StoredEvent) => {
      switch (event.type) {
        case 'ProductAdded':
          return add(evolveProduct(() => undefined, event)!);
        case 'ProductEdited':
          return edit(event);
        case 'ProductPricesUpdated': {
          // Merged into the product's unwritten changes in place: they live until the flush, and a fresh
          // object per update would pile up as old-generation garbage over a long rebuild.
          const changes = unwritten.get(event.data.id);
          if (changes === undefined) unwritten.set(event.data.id, { ...event.data.changes });
          else Object.assign(changes, event.data.changes);
          break;
        }
        case 'BrandEdited':
          if (event.data.name !== undefined) return brandOrGroupRenamed(brands, event.data.id, idsByBrand);
          break;
        case 'CategoryEdited':
          if (event.data.name !== undefined) return brandOrGroupRenamed(categories, event.data.id, idsByCategory);
          break;
      }
    };
    // A batch's new ids looked up at once: ids in any order cost a statement a hundred, not a seek each.
    const prepare = (events: readonly StoredEvent[]) => known.lookUp(events.flatMap((e) => (e.type === 'ProductAdded' ? [[[], e.data.id] as const] : [])));
    return Object.assign(handle, { prepare, persist, flush, discard });
  },
};
