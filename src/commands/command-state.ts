import type { BrandState } from '../records/brand/deciders.ts';
import type { CategoryState } from '../records/category/deciders.ts';
import type { ProductState } from '../records/product/deciders.ts';
import type { ContractorState } from '../records/contractor/deciders.ts';
import type { DocumentState } from '../records/document/deciders.ts';

/** Everything the deciders may read. */
export type CommandState = ProductState & CategoryState & BrandState & ContractorState & DocumentState;
