import { type SqlSession, keyedRead } from '../storage/sql.ts';
import { evolveCategory } from '../records/category/evolve.ts';
import type { RecordReadModel } from './read-model.ts';
import { recordProjector } from './row-writer.ts';

export interface CategoryRow {
  id: number;
  name: string;
  parent: number;
}

/** Product groups as a flat table with parent links; the tree is assembled on read (groups are few). */
const categoriesModel: RecordReadModel<CategoryRow> = {
  name: 'categories',
  version: 1,
  after: [],
  tables: ['product_categories'],
  schema: (n, { types: t }) => [
    `CREATE TABLE ${n('product_categories')} (id ${t.integer} PRIMARY KEY, name ${t.text} NOT NULL, parent ${t.integer} NOT NULL)`,
  ],
  readIndexes: (n) => [`CREATE INDEX ${n('product_categories_parent_name')} ON ${n('product_categories')} (parent, name)`],
  records: {
    table: 'product_categories',
    stored: { id: 'integer', name: 'text', parent: 'integer' },
    row: (c) => [c.id, c.name, c.parent],
    read: { columns: ['id', 'name', 'parent'], record: ([id, name, parent]) => ({ id, name, parent }) as CategoryRow },
    rendered: {},
  },
  on: {
    CategoryAdded: (event, categories) => categories.add(event.data),
    CategoryEdited: (event, categories) => categories.edit(event.data.id, (current) => evolveCategory(() => current, event)),
  },
  adds: ['CategoryAdded'],
};

export const categoriesProjector = recordProjector(categoriesModel);

export interface CategoryNode {
  id: number;
  name: string;
  children: CategoryNode[];
}

const namesByIds = keyedRead<number, string>((list) => `SELECT id, name FROM product_categories WHERE id IN (${list})`, String);

export function categoryQueries(session: SqlSession) {
  return {
    /** The names of the groups with these ids, by id (unknown ids are left out). */
    namesByIds: (ids: number[]) => namesByIds(session, ids),
    byId: async (id: number) => (await session.objects<CategoryRow>('SELECT id, name, parent FROM product_categories WHERE id = ?', [id]))[0],
    /** The top-level groups, each with its subgroups nested to any depth, all in id order. */
    async tree(): Promise<CategoryNode[]> {
      const rows = await session.objects<CategoryRow>('SELECT id, name, parent FROM product_categories ORDER BY id');
      const nodes = new Map(rows.map((r) => [r.id, { id: r.id, name: r.name, children: [] as CategoryNode[] }]));
      const roots: CategoryNode[] = [];
      for (const r of rows) {
        const node = nodes.get(r.id)!;
        const parent = nodes.get(r.parent);
        (parent ? parent.children : roots).push(node);
      }
      return roots;
    },
  };
}
