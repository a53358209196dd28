import fc from 'fast-check';
import { expect, test } from 'vitest';
import type { ProductRecord } from '../../src/records/product/events.ts';
import { productFullJson, productListView, productOnlyFields } from '../../src/projections/products/views.ts';

const text = fc.string({ unit: fc.constantFrom('a', 'я', '"', '\\', '\n', '}', ',', '😀') });
const num = fc.option(fc.integer({ min: -1e9, max: 1e9 }));
const product: fc.Arbitrary<ProductRecord> = fc.record({
  id: fc.nat(),
  name: text,
  sku: text,
  categoryId: fc.nat(),
  brandId: num,
  minPrice: num,
  purchasePrice: num,
  salePrice: num,
  unit: fc.option(text),
  vat: num,
  order: num,
  code: num,
  weight: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true })),
  dimensionX: num,
  dimensionY: num,
  dimensionZ: num,
  parent: num,
  barcodes: fc.array(text),
  additionalPrices: fc.array(fc.record({ name: text, price: fc.integer() })),
  packs: fc.array(fc.record({ unit: text, count: fc.integer(), barcode: fc.option(text) })),
  additionalFields: fc.array(fc.record({ name: text, value: text })),
  files: fc.array(text),
});

test('the single-product JSON built from the list JSON is the serialised merged view, byte for byte', () => {
  fc.assert(
    fc.property(product, fc.option(fc.record({ id: fc.nat(), name: text })), fc.record({ id: fc.nat(), name: text }), (p, brand, category) => {
      const list = productListView(p, brand, category);
      expect(productFullJson(JSON.stringify(list), p)).toBe(JSON.stringify({ ...list, ...productOnlyFields(p) }));
    }),
  );
});
