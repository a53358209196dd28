import { describe, it } from 'vitest';
import { AddCategoryInput, categoryCodes, addCategory as addCategoryDecider, editCategory as editCategoryDecider, EditCategoryInput } from '../../src/records/category/deciders.ts';
import { importLineKinds } from '../../src/commands/import-lines.ts';
import { command, given } from './decider-spec.ts';

const addCategory = command(AddCategoryInput, addCategoryDecider, categoryCodes);
const editCategory = command(EditCategoryInput, editCategoryDecider, categoryCodes);
const importCategory = importLineKinds.get('product_category')!;

// Напитки(1) ─ Чай(2) ─ Зелёный(3);  Посуда(4) ─ Чай(5): two groups named Чай under different parents.
const tree = {
  categories: [
    { id: 1, name: 'Напитки', parent: 0 },
    { id: 2, name: 'Чай', parent: 1 },
    { id: 3, name: 'Зелёный', parent: 2 },
    { id: 4, name: 'Посуда', parent: 0 },
    { id: 5, name: 'Чай', parent: 4 },
  ],
};

describe('add-product-category', () => {
  it('adds a top-level group when parent is omitted', () => {
    given(tree)
      .when(addCategory, { name: 'Хлеб' })
      .thenEvents([{ stream: 'category-6', type: 'CategoryAdded', data: { id: 6, name: 'Хлеб', parent: 0 }, expectedVersion: 'no_stream' }])
      .andResult({ id: 6, name: 'Хлеб' });
  });

  it('adds a subgroup of an existing group', () => {
    given(tree)
      .when(addCategory, { name: 'Чёрный', parent: 2 })
      .thenEvents([{ stream: 'category-6', type: 'CategoryAdded', data: { id: 6, name: 'Чёрный', parent: 2 }, expectedVersion: 'no_stream' }]);
  });

  it('a parent that does not exist is ERROR_CATEGORY_ID', () => {
    given(tree).when(addCategory, { name: 'Чёрный', parent: 9 }).thenErrors({ code: 'ERROR_CATEGORY_ID', field: 'parent' });
  });

  it('a name a sibling has is ERROR_CATEGORY_NAME', () => {
    given(tree).when(addCategory, { name: 'Зелёный', parent: 2 }).thenErrors({ code: 'ERROR_CATEGORY_NAME', field: 'name' });
    given(tree).when(addCategory, { name: 'Напитки' }).thenErrors({ code: 'ERROR_CATEGORY_NAME', field: 'name' });
  });

  it('the same name under another parent is allowed', () => {
    given(tree)
      .when(addCategory, { name: 'Зелёный', parent: 5 })
      .thenEvents([{ stream: 'category-6', type: 'CategoryAdded', data: { id: 6, name: 'Зелёный', parent: 5 }, expectedVersion: 'no_stream' }]);
  });

  it('a blank name and a negative parent are refused under the groups’ error names', () => {
    given(tree).when(addCategory, { name: ' ', parent: -1 }).thenErrors({ code: 'ERROR_CATEGORY_NAME', field: 'name' }, { code: 'ERROR_CATEGORY_ID', field: 'parent' });
  });
});

describe('edit-product-category', () => {
  it('without parent renames the group where it is', () => {
    given(tree)
      .when(editCategory, { id: 3, name: 'Зелёный чай' })
      .thenEvents([{ stream: 'category-3', type: 'CategoryEdited', data: { id: 3, name: 'Зелёный чай' } }])
      .andResult({ id: 3, name: 'Зелёный чай' });
  });

  it('moving a group carries only the new parent', () => {
    given(tree).when(editCategory, { id: 3, name: 'Зелёный', parent: 5 }).thenEvents([{ stream: 'category-3', type: 'CategoryEdited', data: { id: 3, parent: 5 } }]);
  });

  it('may move a group to the top level', () => {
    given(tree).when(editCategory, { id: 2, name: 'Чай', parent: 0 }).thenEvents([{ stream: 'category-2', type: 'CategoryEdited', data: { id: 2, parent: 0 } }]);
  });

  it('the current values again append nothing', () => {
    given(tree).when(editCategory, { id: 2, name: 'Чай', parent: 1 }).thenNothing().andResult({ id: 2, name: 'Чай' });
    given(tree).when(editCategory, { id: 2, name: 'Чай' }).thenNothing();
  });

  it('an unknown id is ERROR_CATEGORY_ID on the id', () => {
    given(tree).when(editCategory, { id: 9, name: 'Хлеб' }).thenErrors({ code: 'ERROR_CATEGORY_ID', field: 'id' });
  });

  it('a group cannot become its own parent or go under its own descendant', () => {
    given(tree).when(editCategory, { id: 2, name: 'Чай', parent: 2 }).thenErrors({ code: 'ERROR_CATEGORY_ID', field: 'parent' });
    given(tree).when(editCategory, { id: 1, name: 'Напитки', parent: 3 }).thenErrors({ code: 'ERROR_CATEGORY_ID', field: 'parent' });
  });

  it('may go under a group of another branch', () => {
    given(tree).when(editCategory, { id: 4, name: 'Посуда', parent: 3 }).thenEvents([{ stream: 'category-4', type: 'CategoryEdited', data: { id: 4, parent: 3 } }]);
  });

  it('a parent that does not exist is ERROR_CATEGORY_ID', () => {
    given(tree).when(editCategory, { id: 3, name: 'Зелёный', parent: 9 }).thenErrors({ code: 'ERROR_CATEGORY_ID', field: 'parent' });
  });

  it('names are checked among the siblings at the destination', () => {
    // Чай(2) moving under Посуда(4) would meet Посуда's own Чай(5).
    given(tree).when(editCategory, { id: 2, name: 'Чай', parent: 4 }).thenErrors({ code: 'ERROR_CATEGORY_NAME', field: 'name' });
    given(tree).when(editCategory, { id: 4, name: 'Напитки' }).thenErrors({ code: 'ERROR_CATEGORY_NAME', field: 'name' });
  });

  it('reports a bad parent and a taken name together', () => {
    // Чай(2) under its own grandchild, next to a Сенча already there.
    const deeper = { categories: [...tree.categories, { id: 6, name: 'Сенча', parent: 3 }] };
    given(deeper).when(editCategory, { id: 2, name: 'Сенча', parent: 3 }).thenErrors({ code: 'ERROR_CATEGORY_ID', field: 'parent' }, { code: 'ERROR_CATEGORY_NAME', field: 'name' });
  });
});

describe('import line: product_category', () => {
  it('with an id that exists edits that group', () => {
    given(tree).when(importCategory, { id: 3, name: 'Улун', parent: 2 }).thenEvents([{ stream: 'category-3', type: 'CategoryEdited', data: { id: 3, name: 'Улун' } }]);
  });

  it('with an unknown id creates the group under that id', () => {
    given(tree)
      .when(importCategory, { id: 20, name: 'Хлеб' })
      .thenEvents([{ stream: 'category-20', type: 'CategoryAdded', data: { id: 20, name: 'Хлеб', parent: 0 }, expectedVersion: 'no_stream' }])
      .andResult({ id: 20, name: 'Хлеб' });
  });

  it('without an id finds the group by its name under its parent, so the same line again appends nothing', () => {
    given(tree).when(importCategory, { name: 'Чай', parent: 4 }).thenNothing().andResult({ id: 5, name: 'Чай' });
    given(tree).when(importCategory, { name: 'Напитки' }).thenNothing().andResult({ id: 1, name: 'Напитки' });
  });

  it('without an id and a name new under that parent adds a group', () => {
    given(tree)
      .when(importCategory, { name: 'Зелёный', parent: 5 })
      .thenEvents([{ stream: 'category-6', type: 'CategoryAdded', data: { id: 6, name: 'Зелёный', parent: 5 }, expectedVersion: 'no_stream' }]);
  });

  it('a new id keeps the parent and sibling-name rules', () => {
    given(tree).when(importCategory, { id: 20, name: 'Чай', parent: 1 }).thenErrors({ code: 'ERROR_CATEGORY_NAME', field: 'name' });
    given(tree).when(importCategory, { id: 20, name: 'Хлеб', parent: 20 }).thenErrors({ code: 'ERROR_CATEGORY_ID', field: 'parent' });
  });
});
