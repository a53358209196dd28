import { z } from 'zod';
import { defineEvent } from '../../events/define.ts';
import { kopecks } from '../../events/money.ts';
import type { Upcaster } from '../../events/upcasters.ts';

/** Facts about products. Money is integer kopecks; an omitted key in an `…Edited` event means "unchanged". */

export const productFields = z.object({
  name: z.string(),
  sku: z.string(),
  categoryId: z.number().int(),
  brandId: z.number().int().nullable(),
  minPrice: kopecks.nullable(),
  purchasePrice: kopecks.nullable(),
  salePrice: kopecks.nullable(),
  unit: z.string().nullable(),
  vat: z.number().int().nullable(),
  order: z.number().nullable(),
  code: z.number().nullable(),
  weight: z.number().nullable(),
  dimensionX: z.number().nullable(),
  dimensionY: z.number().nullable(),
  dimensionZ: z.number().nullable(),
  parent: z.number().int().nullable(),
  barcodes: z.array(z.string()),
  additionalPrices: z.array(z.object({ name: z.string(), price: kopecks })),
  packs: z.array(z.object({ unit: z.string(), count: z.number(), barcode: z.string().nullable() })),
  additionalFields: z.array(z.object({ name: z.string(), value: z.string() })),
  files: z.array(z.string()),
});
export type ProductFields = z.infer<typeof productFields>;
export type ProductRecord = ProductFields & { id: number };

export const ProductAdded = defineEvent('ProductAdded', 1, productFields.extend({ id: z.number().int() }));
export const ProductEdited = defineEvent('ProductEdited', 1, z.object({ id: z.number().int(), changes: productFields.partial() }));
/** Version 1 had the prices beside `id`; its rows are upcast (`productUpcasters`). */
export const ProductPricesUpdated = defineEvent(
  'ProductPricesUpdated',
  2,
  z.object({ id: z.number().int(), changes: productFields.pick({ minPrice: true, purchasePrice: true, salePrice: true }).partial() }),
);

export const productEvents = [ProductAdded, ProductEdited, ProductPricesUpdated] as const;

export const productUpcasters: Upcaster[] = [
  {
    // v2 carries the new prices under `changes`, like ProductEdited, so "what changed" reads the same for both.
    type: 'ProductPricesUpdated',
    fromVersion: 1,
    upcast: ({ id, ...prices }) => ({ id, changes: prices }),
  },
];
