import type { ProductRecord } from '../../records/product/events.ts';
import { fromKopecks } from '../../lib/money.ts';

/** Category id 0 marks a service rather than a stocked product. */
export const SERVICE_CATEGORY = { id: 0, name: 'Услуга' };

export interface Named {
  id: number;
  name: string;
}

/** The product as the list shows it, keys in the spec's order. */
export function productListView(p: ProductRecord, brand: Named | null, category: Named) {
  return {
    id: p.id,
    name: p.name,
    sku: p.sku,
    minPrice: fromKopecks(p.minPrice),
    purchasePrice: fromKopecks(p.purchasePrice),
    salePrice: fromKopecks(p.salePrice),
    unit: p.unit,
    vat: p.vat,
    order: p.order,
    code: p.code,
    weight: p.weight,
    dimensionX: p.dimensionX,
    dimensionY: p.dimensionY,
    dimensionZ: p.dimensionZ,
    parent: p.parent,
    brand,
    category,
    barcodes: p.barcodes,
  };
}

/** The fields only the single-product read carries, in the spec's order (they follow the list view's). */
export function productOnlyFields(p: ProductRecord) {
  return {
    additionalPrices: p.additionalPrices.map((a) => ({ name: a.name, price: fromKopecks(a.price) })),
    packs: p.packs,
    additionalFields: p.additionalFields,
    files: p.files,
  };
}

/**
 * The single-product read's JSON from the list view's: the same keys then the fields only it carries. Equal
 * to serialising the merged object, without building and serialising the list view's fields twice.
 */
export function productFullJson(listJson: string, p: ProductRecord): string {
  return `${listJson.slice(0, -1)},${JSON.stringify(productOnlyFields(p)).slice(1)}`;
}
