import type { ProductRecord } from '../records/product/events.ts';
import type { BrandRecord, CategoryRecord } from '../events/catalogue.ts';

/** What the catalogue commands need to know to decide: current records and the uniqueness indexes. */
export interface CatalogueState {
  product(id: number): ProductRecord | undefined;
  productIdBySku(sku: string): number | undefined;
  nextProductId(): number;
  category(id: number): CategoryRecord | undefined;
  categoryIdBySiblingName(parent: number, name: string): number | undefined;
  nextCategoryId(): number;
  brand(id: number): BrandRecord | undefined;
  brandIdByName(name: string): number | undefined;
  nextBrandId(): number;
}
