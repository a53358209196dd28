import { z } from 'zod';
import type { ProductFields, ProductRecord } from './events.ts';
import { evolveProduct } from './evolve.ts';
import { fromKopecks } from '../../lib/money.ts';
import { type DomainError, fail, ok, type Result } from '../../lib/result.ts';
import type { BrandState } from '../brand/deciders.ts';
import type { CategoryState } from '../category/deciders.ts';
import { changedFields, type Decision } from '../../commands/decision.ts';
import { type Decider, ids } from '../../commands/lookups.ts';
import type { Lookups } from '../registry.ts';
import { money, quantity, recordId, requiredText, text, wholeNumber } from '../../lib/validation.ts';

/** What the product commands need to know to decide: the products, and the groups and brands they name. */
export interface ProductState {
  product(id: number): ProductRecord | undefined;
  productIdBySku(sku: string): number | undefined;
  nextProductId(): number;
}

type ProductDeciderState = ProductState & Pick<CategoryState, 'category'> & Pick<BrandState, 'brand'>;

export const VAT_RATES = [0, 5, 7, 10, 20, 22] as const;

const optionalProductFields = {
  minPrice: money().nullish(),
  purchasePrice: money().nullish(),
  salePrice: money().nullish(),
  unit: text().nullish(),
  vat: z
    .number()
    .refine((v) => (VAT_RATES as readonly number[]).includes(v), `must be one of ${VAT_RATES.join(', ')}`)
    .nullish(),
  brandId: recordId().nullish(),
  barcodes: z.array(text()).max(100).nullish(),
  order: quantity().nullish(),
  code: quantity().nullish(),
  weight: quantity().nullish(),
  dimensionX: quantity().nullish(),
  dimensionY: quantity().nullish(),
  dimensionZ: quantity().nullish(),
  parent: recordId().nullish(),
};

/** The fields only an import line may carry (the API's records have no place for them). */
const importOnlyProductFields = {
  additionalPrices: z.array(z.object({ name: text(), price: money() })).max(100).nullish(),
  packs: z.array(z.object({ unit: text(), count: quantity(), barcode: text().nullish() })).max(100).nullish(),
  additionalFields: z.array(z.object({ name: text(), value: text(4000) })).max(100).nullish(),
  files: z.array(text(2000)).max(100).nullish(),
};

const requiredProductFields = { name: requiredText(500), sku: requiredText(), categoryId: wholeNumber() };

export const AddProductInput = z.object({ ...requiredProductFields, ...optionalProductFields });
export const EditProductInput = z.object({ id: recordId(), ...requiredProductFields, ...optionalProductFields });
export const ImportProductInput = z.object({ id: recordId().optional(), ...requiredProductFields, ...optionalProductFields, ...importOnlyProductFields });
export const UpdatePricesInput = z.object({ sku: requiredText(), minPrice: money().nullish(), purchasePrice: money().nullish(), salePrice: money().nullish() });

export type ImportProduct = z.output<typeof ImportProductInput>;
export type UpdatePrices = z.output<typeof UpdatePricesInput>;

export interface ProductResult {
  id: number;
  sku: string;
}

export interface PricesResult extends ProductResult {
  minPrice: number | null;
  purchasePrice: number | null;
  salePrice: number | null;
}

/** The widest product record (an import line's); the API's add and edit records are narrower cases of it. */
type ProductInput = Omit<ImportProduct, 'id'>;

/** Errors of the references and uniqueness rules a product must keep, given the product's own id. */
function referenceErrors(input: ProductInput, id: number | undefined, state: ProductDeciderState): DomainError[] {
  const errors: DomainError[] = [];
  const skuOwner = state.productIdBySku(input.sku);
  if (skuOwner !== undefined && skuOwner !== id) errors.push({ code: 'ERROR_SKU', field: 'sku', message: `sku ${input.sku} is used by product ${skuOwner}` });
  if (input.categoryId !== 0 && !state.category(input.categoryId)) {
    errors.push({ code: 'ERROR_CATEGORY_ID', field: 'categoryId', message: `product group ${input.categoryId} does not exist` });
  }
  if (input.brandId != null && !state.brand(input.brandId)) errors.push({ code: 'ERROR_BRAND_ID', field: 'brandId', message: `brand ${input.brandId} does not exist` });
  if (input.parent != null && (input.parent === id || !state.product(input.parent))) {
    errors.push({ code: 'ERROR_PARENT', field: 'parent', message: `parent product ${input.parent} does not exist` });
  }
  return errors;
}

function packsOf(packs: ProductInput['packs']): ProductFields['packs'] {
  return (packs ?? []).map((p) => ({ unit: p.unit, count: p.count, barcode: p.barcode ?? null }));
}

/** Optional fields given as null or omitted on an add are simply not set. */
function newProduct(id: number, input: ProductInput): ProductRecord {
  return {
    id,
    name: input.name,
    sku: input.sku,
    categoryId: input.categoryId,
    brandId: input.brandId ?? null,
    minPrice: input.minPrice ?? null,
    purchasePrice: input.purchasePrice ?? null,
    salePrice: input.salePrice ?? null,
    unit: input.unit ?? null,
    vat: input.vat ?? null,
    order: input.order ?? null,
    code: input.code ?? null,
    weight: input.weight ?? null,
    dimensionX: input.dimensionX ?? null,
    dimensionY: input.dimensionY ?? null,
    dimensionZ: input.dimensionZ ?? null,
    parent: input.parent ?? null,
    barcodes: input.barcodes ?? [],
    additionalPrices: input.additionalPrices ?? [],
    packs: packsOf(input.packs),
    additionalFields: input.additionalFields ?? [],
    files: input.files ?? [],
  };
}

/** On an edit, an omitted field stays as it is and a null clears it (an empty list for list fields). */
function editedFields(input: ProductInput & { id?: number }): Partial<ProductFields> {
  const fields: Partial<ProductFields> = {};
  const lists = new Set(['barcodes', 'additionalPrices', 'packs', 'additionalFields', 'files']);
  for (const [key, value] of Object.entries(input)) {
    if (key === 'id' || value === undefined) continue;
    (fields as Record<string, unknown>)[key] = value === null && lists.has(key) ? [] : value;
  }
  if (input.packs) fields.packs = packsOf(input.packs);
  return fields;
}

export function decideAddProduct(input: ProductInput, state: ProductDeciderState, id = state.nextProductId()): Result<Decision<ProductResult>> {
  const errors = referenceErrors(input, id, state);
  if (errors.length > 0) return fail(...errors);
  const record = newProduct(id, input);
  return ok({ events: [{ stream: `product-${id}`, type: 'ProductAdded', data: record, expectedVersion: 'no_stream' }], result: { id, sku: record.sku } });
}

export function decideEditProduct(input: ProductInput & { id: number }, state: ProductDeciderState): Result<Decision<ProductResult>> {
  const current = state.product(input.id);
  if (!current) return fail({ code: 'ERROR_ID', field: 'id', message: `product ${input.id} does not exist` });
  const errors = referenceErrors(input, input.id, state);
  if (errors.length > 0) return fail(...errors);
  const changes = changedFields(current, editedFields(input));
  const events = Object.keys(changes).length === 0 ? [] : [{ stream: `product-${input.id}`, type: 'ProductEdited' as const, data: { id: input.id, changes } }];
  return ok({ events, result: { id: input.id, sku: input.sku } });
}

/**
 * An import line edits the product it names (by id, or else by sku) and adds one otherwise, keeping a given id.
 * So re-importing a file finds every product already there and appends nothing.
 */
export function decideImportProduct(input: ImportProduct, state: ProductDeciderState): Result<Decision<ProductResult>> {
  const existing = input.id ?? state.productIdBySku(input.sku);
  if (existing !== undefined && state.product(existing)) return decideEditProduct({ ...input, id: existing }, state);
  return decideAddProduct(input, state, input.id ?? state.nextProductId());
}

export function decideUpdatePrices(input: UpdatePrices, state: ProductDeciderState): Result<Decision<PricesResult>> {
  const known = state.productIdBySku(input.sku);
  const current = known === undefined ? undefined : state.product(known);
  if (current === undefined) return fail({ code: 'ERROR_SKU', field: 'sku', message: `no product has sku ${input.sku}` });
  const { id } = current;
  const { sku: _sku, ...prices } = input;
  const changes = changedFields(current, prices);
  const events = Object.keys(changes).length === 0 ? [] : [{ stream: `product-${id}`, type: 'ProductPricesUpdated' as const, data: { id, changes } }];
  // The answer shows the prices as the event leaves the product.
  const after = events.length === 0 ? current : evolveProduct(() => current, events[0])!;
  const result = { id, sku: input.sku, minPrice: fromKopecks(after.minPrice), purchasePrice: fromKopecks(after.purchasePrice), salePrice: fromKopecks(after.salePrice) };
  return ok({ events, result });
}

/** What a product's references and its sku's uniqueness read. */
const referenceLookups = (input: ProductInput): Lookups => ({
  productSkus: [input.sku],
  categories: ids(input.categoryId),
  brands: ids(input.brandId),
  products: ids(input.parent),
});

export const addProduct: Decider<z.output<typeof AddProductInput>, ProductResult> = {
  decide: decideAddProduct,
  lookups: (input) => ({ ...referenceLookups(input), highestIds: ['products'] }),
};

export const editProduct: Decider<z.output<typeof EditProductInput>, ProductResult> = {
  decide: decideEditProduct,
  lookups: (input) => ({ ...referenceLookups(input), products: ids(input.id, input.parent) }),
};

export const importProduct: Decider<ImportProduct, ProductResult> = {
  decide: decideImportProduct,
  lookups: (input) => ({ ...referenceLookups(input), products: ids(input.id, input.parent), highestIds: input.id === undefined ? ['products'] : [] }),
};

export const updatePrices: Decider<UpdatePrices, PricesResult> = {
  decide: decideUpdatePrices,
  lookups: (input) => ({ productSkus: [input.sku] }),
};
