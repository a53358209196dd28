import type { z } from 'zod';
import { DOCUMENT_TYPES, isLineDocument } from '../records/document/events.ts';
import { ImportBrandInput, brandCodes, importBrand } from '../records/brand/deciders.ts';
import { ImportCategoryInput, categoryCodes, importCategory } from '../records/category/deciders.ts';
import { ImportContractorInput, contractorCodes, importContractor } from '../records/contractor/deciders.ts';
import { ImportLineDocumentInput, ImportMoneyDocumentInput, documentDecider } from '../records/document/deciders.ts';
import type { Decider } from './lookups.ts';
import type { CodeOverrides } from '../lib/validation.ts';
import { ImportProductInput, importProduct } from '../records/product/deciders.ts';

/** How one kind of import line is validated and decided. */
export interface ImportLineKind {
  schema: z.ZodType;
  codes: CodeOverrides;
  decider: Decider<never, unknown>;
}

const kind = <S extends z.ZodType>(schema: S, codes: CodeOverrides, decider: Decider<z.output<S>, unknown>): ImportLineKind => ({
  schema,
  codes,
  decider: decider as Decider<never, unknown>,
});

/**
 * Every `type` an import line may have (decisions.md section 6). A Map, because the type comes from the line:
 * an object would also answer `constructor`, `__proto__` or `toString` with what it inherits.
 */
export const importLineKinds: ReadonlyMap<string, ImportLineKind> = new Map<string, ImportLineKind>([
  ['product', kind(ImportProductInput, {}, importProduct)],
  ['product_category', kind(ImportCategoryInput, categoryCodes, importCategory)],
  ['product_brand', kind(ImportBrandInput, brandCodes, importBrand)],
  ['contractor', kind(ImportContractorInput, contractorCodes, importContractor)],
  ...DOCUMENT_TYPES.map((type): [string, ImportLineKind] => [
    type,
    kind(isLineDocument(type) ? ImportLineDocumentInput : ImportMoneyDocumentInput, {}, documentDecider(type)),
  ]),
]);
