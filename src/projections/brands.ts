import type { Sqlite } from '../storage/sqlite/open.ts';
import type { StoredEvent } from '../events/store.ts';
import type { Projector, TableNames } from './projector.ts';

export interface BrandRow {
  id: number;
  name: string;
  logo: string | null;
}

/** Brands, each with its list JSON ready to concatenate into the response. */
export const brandsProjector: Projector = {
  name: 'brands',
  version: 1,
  after: [],
  tables: ['product_brands'],
  schema: (n) => [
    `CREATE TABLE ${n('product_brands')} (id INTEGER PRIMARY KEY, name TEXT NOT NULL, logo TEXT, json TEXT NOT NULL)`,
  ],
  readIndexes: (n) => [`CREATE INDEX ${n('product_brands_name')} ON ${n('product_brands')} (name)`],
  bind(db: Sqlite, n: TableNames) {
    const get = db.prepare(`SELECT id, name, logo FROM ${n('product_brands')} WHERE id = ?`);
    const upsert = db.prepare(
      `INSERT INTO ${n('product_brands')} (id, name, logo, json) VALUES (@id, @name, @logo, @json)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, logo = excluded.logo, json = excluded.json`,
    );
    const save = (b: BrandRow) => upsert.run({ ...b, json: JSON.stringify({ id: b.id, name: b.name, logo: b.logo }) });
    return (event: StoredEvent) => {
      switch (event.type) {
        case 'BrandAdded':
          save(event.data);
          break;
        case 'BrandEdited': {
          const current = get.get(event.data.id) as BrandRow;
          save({ ...current, ...event.data });
          break;
        }
      }
    };
  },
};

export function brandQueries(db: Sqlite) {
  const byId = db.prepare('SELECT id, name, logo FROM product_brands WHERE id = ?');
  const byName = db.prepare('SELECT id FROM product_brands WHERE name = ? ORDER BY id LIMIT 1').pluck();
  const maxId = db.prepare('SELECT coalesce(max(id), 0) FROM product_brands').pluck();
  const all = db.prepare('SELECT json FROM product_brands ORDER BY id').pluck();
  return {
    byId: (id: number) => byId.get(id) as BrandRow | undefined,
    idByName: (name: string) => byName.get(name) as number | undefined,
    maxId: () => maxId.get() as number,
    /** Every brand's JSON in id order. */
    allJson: () => all.all() as string[],
  };
}
