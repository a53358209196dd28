import { z } from 'zod';
import type { CategoryRecord } from './events.ts';
import { type DomainError, fail, ok, type Result } from '../../lib/result.ts';
import type { Decision } from '../../commands/decision.ts';
import { type Decider, ids } from '../../commands/lookups.ts';
import { type CodeOverrides, recordId, requiredText, wholeNumber } from '../../lib/validation.ts';

/** What the product group commands need to know to decide. */
export interface CategoryState {
  category(id: number): CategoryRecord | undefined;
  categoryIdBySiblingName(parent: number, name: string): number | undefined;
  nextCategoryId(): number;
}

export const categoryCodes: CodeOverrides = { name: 'ERROR_CATEGORY_NAME', id: 'ERROR_CATEGORY_ID', parent: 'ERROR_CATEGORY_ID' };

export const AddCategoryInput = z.object({ name: requiredText(), parent: wholeNumber().optional() });
export const EditCategoryInput = z.object({ id: recordId(), name: requiredText(), parent: wholeNumber().optional() });
export const ImportCategoryInput = z.object({ id: recordId().optional(), name: requiredText(), parent: wholeNumber().optional() });

export type AddCategory = z.output<typeof AddCategoryInput>;
export type EditCategory = z.output<typeof EditCategoryInput>;
export type ImportCategory = z.output<typeof ImportCategoryInput>;

export interface CategoryResult {
  id: number;
  name: string;
}

function siblingNameError(name: string, parent: number, id: number | undefined, state: CategoryState): DomainError[] {
  const owner = state.categoryIdBySiblingName(parent, name);
  return owner !== undefined && owner !== id
    ? [{ code: 'ERROR_CATEGORY_NAME', field: 'name', message: `group ${owner} under the same parent is already named ${name}` }]
    : [];
}

/** The parent must be the top level (0) or an existing group that is not the group itself or one of its descendants. */
function parentError(parent: number, id: number | undefined, state: CategoryState): DomainError[] {
  if (parent === 0) return [];
  const bad = (message: string): DomainError[] => [{ code: 'ERROR_CATEGORY_ID', field: 'parent', message }];
  for (let at = state.category(parent), depth = 0; ; depth++) {
    if (!at) return bad(`parent group ${parent} does not exist`);
    if (at.id === id) return bad(`group ${id} cannot be placed under itself or its own subgroup`);
    if (at.parent === 0) return [];
    at = state.category(at.parent);
    if (depth > 10_000) return bad('the group tree is too deep');
  }
}

export function decideAddCategory(input: AddCategory, state: CategoryState, id = state.nextCategoryId()): Result<Decision<CategoryResult>> {
  const parent = input.parent ?? 0;
  const errors = [...parentError(parent, id, state), ...siblingNameError(input.name, parent, id, state)];
  if (errors.length > 0) return fail(...errors);
  return ok({
    events: [{ stream: `category-${id}`, type: 'CategoryAdded', data: { id, name: input.name, parent }, expectedVersion: 'no_stream' }],
    result: { id, name: input.name },
  });
}

export function decideEditCategory(input: EditCategory, state: CategoryState): Result<Decision<CategoryResult>> {
  const current = state.category(input.id);
  if (!current) return fail({ code: 'ERROR_CATEGORY_ID', field: 'id', message: `group ${input.id} does not exist` });
  const parent = input.parent ?? current.parent;
  const errors = [...parentError(parent, input.id, state), ...siblingNameError(input.name, parent, input.id, state)];
  if (errors.length > 0) return fail(...errors);
  const data = { id: input.id, ...(input.name !== current.name && { name: input.name }), ...(parent !== current.parent && { parent }) };
  const events = Object.keys(data).length === 1 ? [] : [{ stream: `category-${input.id}`, type: 'CategoryEdited' as const, data }];
  return ok({ events, result: { id: input.id, name: input.name } });
}

/** An import line edits the group it names (by id, or else by name under its parent) and adds one otherwise. */
export function decideImportCategory(input: ImportCategory, state: CategoryState): Result<Decision<CategoryResult>> {
  const existing = input.id ?? state.categoryIdBySiblingName(input.parent ?? 0, input.name);
  if (existing !== undefined && state.category(existing)) return decideEditCategory({ ...input, id: existing }, state);
  return decideAddCategory(input, state, input.id ?? state.nextCategoryId());
}

// A group read by id comes with the groups above it (the parent chain is walked for cycles); sibling names are
// read by name under every parent, so an edit that keeps its parent finds its siblings before its parent is known.
export const addCategory: Decider<AddCategory, CategoryResult> = {
  decide: decideAddCategory,
  lookups: (input) => ({ categories: ids(input.parent), categoryNames: [input.name], highestIds: ['categories'] }),
};

export const editCategory: Decider<EditCategory, CategoryResult> = {
  decide: decideEditCategory,
  lookups: (input) => ({ categories: ids(input.id, input.parent), categoryNames: [input.name] }),
};

export const importCategory: Decider<ImportCategory, CategoryResult> = {
  decide: decideImportCategory,
  lookups: (input) => ({ categories: ids(input.id, input.parent), categoryNames: [input.name], highestIds: input.id === undefined ? ['categories'] : [] }),
};
