import type { Sqlite } from '../storage/sqlite/open.ts';
import type { StoredEvent } from '../events/store.ts';
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
  schema: (n) => [
    `CREATE TABLE ${n('product_categories')} (id INTEGER PRIMARY KEY, name TEXT NOT NULL, parent INTEGER NOT NULL)`,
  ],
  readIndexes: (n) => [`CREATE INDEX ${n('product_categories_parent_name')} ON ${n('product_categories')} (parent, name)`],
  bind(db: Sqlite, n: TableNames) {
    const insert = db.prepare(
      `INSERT INTO ${n('product_categories')} (id, name, parent) VALUES (@id, @name, @parent)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, parent = excluded.parent`,
    );
    const edit = db.prepare(`UPDATE ${n('product_categories')} SET name = coalesce(@name, name), parent = coalesce(@parent, parent) WHERE id = @id`);
    return (event: StoredEvent) => {
      switch (event.type) {
        case 'CategoryAdded':
          insert.run(event.data);
          break;
        case 'CategoryEdited':
          edit.run({ id: event.data.id, name: event.data.name ?? null, parent: event.data.parent ?? null });
          break;
      }
    };
  },
};

export interface CategoryNode {
  id: number;
  name: string;
  children: CategoryNode[];
}

export function categoryQueries(db: Sqlite) {
  const byId = db.prepare('SELECT id, name, parent FROM product_categories WHERE id = ?');
  const bySiblingName = db.prepare('SELECT id FROM product_categories WHERE parent = ? AND name = ? LIMIT 1').pluck();
  const maxId = db.prepare('SELECT coalesce(max(id), 0) FROM product_categories').pluck();
  const all = db.prepare('SELECT id, name, parent FROM product_categories ORDER BY id');
  return {
    byId: (id: number) => byId.get(id) as CategoryRow | undefined,
    idBySiblingName: (parent: number, name: string) => bySiblingName.get(parent, name) as number | undefined,
    maxId: () => maxId.get() as number,
    /** The top-level groups, each with its subgroups nested to any depth, all in id order. */
    tree(): CategoryNode[] {
      const rows = all.all() as CategoryRow[];
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
