import type { z } from 'zod';
import { DOCUMENT_TYPES, isLineDocument } from '../events/documents.ts';
import { ImportBrandInput, brandCodes, decideImportBrand } from './brands.ts';
import { ImportCategoryInput, categoryCodes, decideImportCategory } from './categories.ts';
import type { CommandState } from './command-state.ts';
import { ImportContractorInput, contractorCodes, decideImportContractor } from './contractors.ts';
import type { Decide } from './decision.ts';
import { ImportLineDocumentInput, ImportMoneyDocumentInput, documentDecider } from './documents.ts';
import type { CodeOverrides } from '../lib/validation.ts';
import { ImportProductInput, decideImportProduct } from './products.ts';

/** How one kind of import line is validated and decided. */
export interface ImportLineKind {
  schema: z.ZodType;
  codes: CodeOverrides;
  decide: Decide<never, CommandState, unknown>;
}

const kind = <S extends z.ZodType>(schema: S, codes: CodeOverrides, decide: Decide<z.output<S>, CommandState, unknown>): ImportLineKind => ({
  schema,
  codes,
  decide: decide as Decide<never, CommandState, unknown>,
});

/**
 * Every `type` an import line may have (decisions.md section 6). A Map, because the type comes from the line:
 * an object would also answer `constructor`, `__proto__` or `toString` with what it inherits.
 */
export const importLineKinds: ReadonlyMap<string, ImportLineKind> = new Map<string, ImportLineKind>([
  ['product', kind(ImportProductInput, {}, decideImportProduct)],
  ['product_category', kind(ImportCategoryInput, categoryCodes, decideImportCategory)],
  ['product_brand', kind(ImportBrandInput, brandCodes, decideImportBrand)],
  ['contractor', kind(ImportContractorInput, contractorCodes, decideImportContractor)],
  ...DOCUMENT_TYPES.map((type): [string, ImportLineKind] => [
    type,
    kind(isLineDocument(type) ? ImportLineDocumentInput : ImportMoneyDocumentInput, {}, documentDecider(type)),
  ]),
]);
