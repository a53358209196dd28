import { type SqlSession, keyedRead } from '../storage/sql.ts';
import { type CategoryEvent, evolveCategory } from '../records/category/evolve.ts';
import type { StoredEvent } from '../events/rows.ts';
import type { Projector, TableNames } from './projector.ts';

export interface CategoryRow {
  id: number;
  name: string;
  parent: number;
}

/** Product groups as a flat table with parent links; the tree is assembled on read (groups are few). */
export const categoriesProjector: Projector = {
  name: 'categories',
  version: 1,
  after: [],
  tables: ['product_categories'],
  schema: (n, { types: t }) => [
    `CREATE TABLE ${n('product_categories')} (id ${t.integer} PRIMARY KEY, name ${t.text} NOT NULL, parent ${t.integer} NOT NULL)`,
  ],
  readIndexes: (n) => [`CREATE INDEX ${n('product_categories_parent_name')} ON ${n('product_categories')} (parent, name)`],
  bind(session: SqlSession, n: TableNames) {
    const get = `SELECT id, name, parent FROM ${n('product_categories')} WHERE id = ?`;
    const upsert = `INSERT INTO ${n('product_categories')} (id, name, parent) VALUES (?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, parent = excluded.parent`;
    // Groups are few: reading the row before an add too costs nothing worth a branch.
    const apply = async (event: CategoryEvent) => {
      const [current] = await session.objects<CategoryRow>(get, [event.data.id]);
      const category = evolveCategory(() => current, event);
      if (category !== undefined) await session.run(upsert, [category.id, category.name, category.parent]);
    };
    // Not async: the other events, most of a long log, make no promise.
    return (event: StoredEvent) => {
      switch (event.type) {
        case 'CategoryAdded':
        case 'CategoryEdited':
          return apply(event);
      }
    };
  },
};

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
