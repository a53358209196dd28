import { type SqlSession, keyedRead } from '../storage/sql.ts';
import { type BrandEvent, evolveBrand } from '../records/brand/evolve.ts';
import type { StoredEvent } from '../events/rows.ts';
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
  schema: (n, { types: t }) => [
    `CREATE TABLE ${n('product_brands')} (id ${t.integer} PRIMARY KEY, name ${t.text} NOT NULL, logo ${t.text}, json ${t.text} NOT NULL)`,
  ],
  readIndexes: (n) => [`CREATE INDEX ${n('product_brands_name')} ON ${n('product_brands')} (name)`],
  bind(session: SqlSession, n: TableNames) {
    const get = `SELECT id, name, logo FROM ${n('product_brands')} WHERE id = ?`;
    const upsert = `INSERT INTO ${n('product_brands')} (id, name, logo, json) VALUES (?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, logo = excluded.logo, json = excluded.json`;
    const save = (b: BrandRow) => session.run(upsert, [b.id, b.name, b.logo, JSON.stringify({ id: b.id, name: b.name, logo: b.logo })]);
    // Brands are few: reading the row before an add too costs nothing worth a branch.
    const apply = async (event: BrandEvent) => {
      const [current] = await session.objects<BrandRow>(get, [event.data.id]);
      const brand = evolveBrand(() => current, event);
      if (brand !== undefined) await save(brand);
    };
    // Not async: the other events, most of a long log, make no promise.
    return (event: StoredEvent) => {
      switch (event.type) {
        case 'BrandAdded':
        case 'BrandEdited':
          return apply(event);
      }
    };
  },
};

const namesByIds = keyedRead<number, string>((list) => `SELECT id, name FROM product_brands WHERE id IN (${list})`, String);

export function brandQueries(session: SqlSession) {
  return {
    /** The names of the brands with these ids, by id (unknown ids are left out). */
    namesByIds: (ids: number[]) => namesByIds(session, ids),
    byId: async (id: number) => (await session.objects<BrandRow>('SELECT id, name, logo FROM product_brands WHERE id = ?', [id]))[0],
    /** Every brand's JSON in id order. */
    allJson: async () => (await session.rows<[string]>('SELECT json FROM product_brands ORDER BY id')).map(([json]) => json),
  };
}
