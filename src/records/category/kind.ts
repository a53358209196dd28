import type { CategoryState } from './deciders.ts';
import { type CategoryRecord, categoryEvents } from './events.ts';
import { evolveCategory } from './evolve.ts';
import { lookup, recordKind } from '../kind.ts';

const siblingKey = (parent: number, name: string) => `group\u0000${parent}\u0000${name}`;

/** Product groups: by id with the groups above them, by name among siblings; ids counted in `categories`. */
export const category = recordKind({
  events: categoryEvents,
  evolve: evolveCategory,
  idTable: 'categories',
  uniqueKey: (record: CategoryRecord) => siblingKey(record.parent, record.name),
  lookups: {
    /** Product groups by id, each with the groups above it (a group's parent chain is checked for cycles). */
    categories: lookup<number>(async (source, ids, answers) => {
      const rows = await source.categoriesWithAncestors(ids);
      for (const row of rows) answers.set('categories', row.id, row);
      for (const id of ids) answers.setAbsent('categories', id, undefined);
      for (const row of rows) if (row.parent !== 0) answers.setAbsent('categories', row.parent, undefined);
    }),
    /**
     * Product groups by name, under any parent: who holds a name among its siblings (the lowest id). Read by name
     * under every parent, so an edit that keeps its parent finds its siblings before its parent is known.
     */
    categoryNames: lookup<string>(async (source, names, answers) => {
      const siblings = answers.table<string, number>('categorySiblings');
      for (const row of await source.categoriesByName(names)) {
        answers.set('categories', row.id, row);
        const key = siblingKey(row.parent, row.name);
        siblings.set(key, Math.min(siblings.get(key) ?? row.id, row.id));
      }
      for (const name of names) answers.set('categoryNames', name, true);
    }),
  },
  state: ({ answers, overlay, nextId }): CategoryState => ({
    category: (id) => overlay.record<CategoryRecord>(`category-${id}`) ?? answers.get('categories', id),
    categoryIdBySiblingName: (parent, name) => {
      const moved = overlay.owner(siblingKey(parent, name));
      if (moved !== undefined) return moved.id;
      answers.get('categoryNames', name);
      return answers.table<string, number>('categorySiblings').get(siblingKey(parent, name));
    },
    nextCategoryId: () => nextId('categories'),
  }),
  current: (state: CategoryState, event) => state.category(event.data.id),
});
