import { type SqlSession, keyedRead } from '../storage/sql.ts';
import { evolveBrand } from '../records/brand/evolve.ts';
import type { RecordReadModel } from './read-model.ts';
import { recordProjector } from './row-writer.ts';

export interface BrandRow {
  id: number;
  name: string;
  logo: string | null;
}

/** Brands, each with its list JSON ready to concatenate into the response. */
const brandsModel: RecordReadModel<BrandRow> = {
  name: 'brands',
  version: 1,
  after: [],
  tables: ['product_brands'],
  schema: (n, { types: t }) => [
    `CREATE TABLE ${n('product_brands')} (id ${t.integer} PRIMARY KEY, name ${t.text} NOT NULL, logo ${t.text}, json ${t.text} NOT NULL)`,
  ],
  readIndexes: (n) => [`CREATE INDEX ${n('product_brands_name')} ON ${n('product_brands')} (name)`],
  records: {
    table: 'product_brands',
    stored: { id: 'integer', name: 'text', logo: 'text' },
    row: (b) => [b.id, b.name, b.logo],
    read: { columns: ['id', 'name', 'logo'], record: ([id, name, logo]) => ({ id, name, logo }) as BrandRow },
    rendered: { json: 'text' },
  },
  on: {
    BrandAdded: (event, brands) => brands.add(event.data),
    BrandEdited: (event, brands) => brands.edit(event.data.id, (current) => evolveBrand(() => current, event)),
  },
  adds: ['BrandAdded'],
  render: (brands) => brands.map((b) => [JSON.stringify({ id: b.id, name: b.name, logo: b.logo })]),
};

export const brandsProjector = recordProjector(brandsModel);

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
