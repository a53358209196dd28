import { z } from 'zod';
import type { BrandRecord } from './events.ts';
import { fail, ok, type Result } from '../../lib/result.ts';
import type { Decision } from '../../commands/decision.ts';
import { type Decider, ids } from '../../commands/lookups.ts';
import { type CodeOverrides, recordId, requiredText, text } from '../../lib/validation.ts';

/** What the brand commands need to know to decide. */
export interface BrandState {
  brand(id: number): BrandRecord | undefined;
  brandIdByName(name: string): number | undefined;
  nextBrandId(): number;
}

export const brandCodes: CodeOverrides = { name: 'ERROR_BRAND_NAME', id: 'ERROR_BRAND_ID' };

const brandFields = { name: requiredText(), logo: text(2000).nullish() };
export const AddBrandInput = z.object(brandFields);
export const EditBrandInput = z.object({ id: recordId(), ...brandFields });
export const ImportBrandInput = z.object({ id: recordId().optional(), ...brandFields });

export type AddBrand = z.output<typeof AddBrandInput>;
export type EditBrand = z.output<typeof EditBrandInput>;
export type ImportBrand = z.output<typeof ImportBrandInput>;

export interface BrandResult {
  id: number;
  name: string;
}

function nameTaken(name: string, id: number | undefined, state: BrandState) {
  const owner = state.brandIdByName(name);
  return owner !== undefined && owner !== id ? fail({ code: 'ERROR_BRAND_NAME', field: 'name', message: `brand ${owner} is already named ${name}` }) : undefined;
}

export function decideAddBrand(input: AddBrand, state: BrandState, id = state.nextBrandId()): Result<Decision<BrandResult>> {
  const taken = nameTaken(input.name, id, state);
  if (taken) return taken;
  return ok({
    events: [{ stream: `brand-${id}`, type: 'BrandAdded', data: { id, name: input.name, logo: input.logo ?? null }, expectedVersion: 'no_stream' }],
    result: { id, name: input.name },
  });
}

export function decideEditBrand(input: EditBrand, state: BrandState): Result<Decision<BrandResult>> {
  const current = state.brand(input.id);
  if (!current) return fail({ code: 'ERROR_BRAND_ID', field: 'id', message: `brand ${input.id} does not exist` });
  const taken = nameTaken(input.name, input.id, state);
  if (taken) return taken;
  const data = {
    id: input.id,
    ...(input.name !== current.name && { name: input.name }),
    ...(input.logo !== undefined && input.logo !== current.logo && { logo: input.logo }),
  };
  const events = Object.keys(data).length === 1 ? [] : [{ stream: `brand-${input.id}`, type: 'BrandEdited' as const, data }];
  return ok({ events, result: { id: input.id, name: input.name } });
}

/** An import line edits the brand it names (by id, or else by name) and adds one otherwise. */
export function decideImportBrand(input: ImportBrand, state: BrandState): Result<Decision<BrandResult>> {
  const existing = input.id ?? state.brandIdByName(input.name);
  if (existing !== undefined && state.brand(existing)) return decideEditBrand({ ...input, id: existing }, state);
  return decideAddBrand(input, state, input.id ?? state.nextBrandId());
}

export const addBrand: Decider<AddBrand, BrandResult> = { decide: decideAddBrand, lookups: (input) => ({ brandNames: [input.name], highestIds: ['brands'] }) };

export const editBrand: Decider<EditBrand, BrandResult> = { decide: decideEditBrand, lookups: (input) => ({ brands: [input.id], brandNames: [input.name] }) };

export const importBrand: Decider<ImportBrand, BrandResult> = {
  decide: decideImportBrand,
  lookups: (input) => ({ brands: ids(input.id), brandNames: [input.name], highestIds: input.id === undefined ? ['brands'] : [] }),
};
