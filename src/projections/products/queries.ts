import type { ReadModelDialect } from '../../storage/dialect.ts';
import type { Sqlite } from '../../storage/sqlite/open.ts';
import type { ProductRecord } from '../../events/catalogue.ts';
import { joinedPageQuery } from '../joined-page.ts';

/** The products' reads: pages, one product's JSON or record, and the lookups commands decide by. */
export function productQueries(db: Sqlite, dialect: ReadModelDialect) {
  // Positions are dense 1..n, so the highest one is the count, read from the index in O(log n).
  const page = joinedPageQuery(
    db,
    dialect,
    'SELECT list_json AS json FROM products WHERE position > @offset ORDER BY position LIMIT @limit',
    'SELECT coalesce(max(position), 0) FROM products',
  );
  const fullById = db.prepare('SELECT full_json FROM products WHERE id = ?').pluck();
  const fullBySku = db.prepare('SELECT full_json FROM products WHERE sku = ?').pluck();
  const recordById = db.prepare('SELECT record FROM products WHERE id = ?').pluck();
  const idBySku = db.prepare('SELECT id FROM products WHERE sku = ?').pluck();
  const maxId = db.prepare('SELECT coalesce(max(id), 0) FROM products').pluck();
  return {
    page: (offset: number, limit: number) => page({ offset, limit }),
    fullJsonById: (id: number) => fullById.get(id) as string | undefined,
    fullJsonBySku: (sku: string) => fullBySku.get(sku) as string | undefined,
    byId(id: number): ProductRecord | undefined {
      const json = recordById.get(id) as string | undefined;
      return json === undefined ? undefined : JSON.parse(json);
    },
    idBySku: (sku: string) => idBySku.get(sku) as number | undefined,
    maxId: () => maxId.get() as number,
  };
}
