import { describe, expect, it } from 'vitest';
import { importLineKinds } from '../../src/commands/import-lines.ts';
import {
  AddProductInput,
  decideAddProduct,
  decideEditProduct,
  decideUpdatePrices,
  EditProductInput,
  UpdatePricesInput,
} from '../../src/commands/products.ts';
import type { ProductRecord } from '../../src/events/catalogue.ts';
import { command, given, inMemoryState, productRecord } from './decider-spec.ts';

const addProduct = command(AddProductInput, decideAddProduct);
const editProduct = command(EditProductInput, decideEditProduct);
const updatePrices = command(UpdatePricesInput, decideUpdatePrices);
const importProduct = importLineKinds.get('product')!;

const tea = productRecord({ id: 1, sku: 'TEA-1', name: 'Чай чёрный', categoryId: 3, brandId: 2, salePrice: 25050, purchasePrice: 18000, minPrice: null, vat: 20, barcodes: ['4600000000011'] });
const catalogue = {
  products: [tea, productRecord({ id: 2, sku: 'CUP-1' })],
  categories: [{ id: 3, name: 'Напитки', parent: 0 }],
  brands: [{ id: 2, name: 'Заря', logo: null }],
};
/** The edit record that restates tea exactly as it is, prices in rubles as on the wire. */
const teaOnWire = { id: 1, sku: 'TEA-1', name: 'Чай чёрный', categoryId: 3, brandId: 2, salePrice: 250.5, purchasePrice: 180, vat: 20, barcodes: ['4600000000011'] };

describe('add-product', () => {
  it('adds a product under the next id, prices turned into kopecks and every unset field null', () => {
    given(catalogue)
      .when(addProduct, { name: 'Кофе', sku: 'COF-1', categoryId: 3, brandId: 2, salePrice: 499.99, vat: 22, weight: 0.25 })
      .thenEvents([
        {
          stream: 'product-3',
          type: 'ProductAdded',
          data: { ...productRecord({ id: 3, sku: 'COF-1' }), name: 'Кофе', categoryId: 3, brandId: 2, salePrice: 49999, vat: 22, weight: 0.25 },
          expectedVersion: 'no_stream',
        },
      ])
      .andResult({ id: 3, sku: 'COF-1' });
  });

  it('takes category 0 as a service, with no group needed', () => {
    given().when(addProduct, { name: 'Доставка', sku: 'SRV-1', categoryId: 0 }).thenEvents([
      { stream: 'product-1', type: 'ProductAdded', data: productRecord({ id: 1, sku: 'SRV-1', name: 'Доставка' }), expectedVersion: 'no_stream' },
    ]);
  });

  it('refuses a sku another product has', () => {
    given(catalogue).when(addProduct, { name: 'Чай', sku: 'TEA-1', categoryId: 0 }).thenErrors({ code: 'ERROR_SKU', field: 'sku' });
  });

  it('refuses a group, brand or parent product that does not exist, listing all of them', () => {
    given(catalogue)
      .when(addProduct, { name: 'Кофе', sku: 'COF-1', categoryId: 9, brandId: 9, parent: 9 })
      .thenErrors({ code: 'ERROR_CATEGORY_ID', field: 'categoryId' }, { code: 'ERROR_BRAND_ID', field: 'brandId' }, { code: 'ERROR_PARENT', field: 'parent' });
  });

  it('accepts an existing product as parent', () => {
    given(catalogue).when(addProduct, { name: 'Чай в пакетиках', sku: 'TEA-2', categoryId: 3, parent: 1 }).thenEvents([{ stream: 'product-3', type: 'ProductAdded', data: productRecord({ id: 3, sku: 'TEA-2', name: 'Чай в пакетиках', categoryId: 3, parent: 1 }), expectedVersion: 'no_stream' }]);
  });

  it.each([0, 5, 7, 10, 20, 22])('accepts vat %i', (vat) => {
    given().when(addProduct, { name: 'Хлеб', sku: 'B-1', categoryId: 0, vat }).thenEvents([
      { stream: 'product-1', type: 'ProductAdded', data: productRecord({ id: 1, sku: 'B-1', name: 'Хлеб', vat }), expectedVersion: 'no_stream' },
    ]);
  });

  it.each([18, 21, -5, 10.5])('refuses vat %d', (vat) => {
    given().when(addProduct, { name: 'Хлеб', sku: 'B-1', categoryId: 0, vat }).thenErrors({ code: 'ERROR_VAT', field: 'vat' });
  });

  it('refuses negative prices and prices with more than two decimals, each under its own name', () => {
    given()
      .when(addProduct, { name: 'Хлеб', sku: 'B-1', categoryId: 0, minPrice: -0.01, purchasePrice: 1.005, salePrice: -1 })
      .thenErrors({ code: 'ERROR_MIN_PRICE', field: 'minPrice' }, { code: 'ERROR_PURCHASE_PRICE', field: 'purchasePrice' }, { code: 'ERROR_SALE_PRICE', field: 'salePrice' });
  });

  it('accepts zero prices', () => {
    given().when(addProduct, { name: 'Образец', sku: 'S-1', categoryId: 0, minPrice: 0, purchasePrice: 0, salePrice: 0 }).thenEvents([
      { stream: 'product-1', type: 'ProductAdded', data: productRecord({ id: 1, sku: 'S-1', name: 'Образец', minPrice: 0, purchasePrice: 0, salePrice: 0 }), expectedVersion: 'no_stream' },
    ]);
  });

  it('refuses a blank name and sku', () => {
    given().when(addProduct, { name: '  ', sku: '', categoryId: 0 }).thenErrors({ code: 'ERROR_NAME', field: 'name' }, { code: 'ERROR_SKU', field: 'sku' });
  });
});

describe('edit-product', () => {
  it('restating the current values appends nothing and still answers the record', () => {
    given(catalogue).when(editProduct, teaOnWire).thenNothing().andResult({ id: 1, sku: 'TEA-1' });
  });

  it('carries only what changed; omitted fields stay as they are', () => {
    given(catalogue)
      .when(editProduct, { id: 1, sku: 'TEA-1', name: 'Чай чёрный', categoryId: 3, salePrice: 260, unit: 'шт' })
      .thenEvents([{ stream: 'product-1', type: 'ProductEdited', data: { id: 1, changes: { salePrice: 26000, unit: 'шт' } } }])
      .andResult({ id: 1, sku: 'TEA-1' });
  });

  it('null clears an optional field, and a list field becomes empty', () => {
    given(catalogue)
      .when(editProduct, { ...teaOnWire, brandId: null, vat: null, barcodes: null })
      .thenEvents([{ stream: 'product-1', type: 'ProductEdited', data: { id: 1, changes: { brandId: null, vat: null, barcodes: [] } } }]);
  });

  it('an unknown id is ERROR_ID', () => {
    given(catalogue).when(editProduct, { ...teaOnWire, id: 99 }).thenErrors({ code: 'ERROR_ID', field: 'id' });
  });

  it('a missing id is ERROR_ID too', () => {
    const { id: _id, ...withoutId } = teaOnWire;
    given(catalogue).when(editProduct, withoutId).thenErrors({ code: 'ERROR_ID', field: 'id' });
  });

  it('may keep its own sku but not take another product’s', () => {
    given(catalogue).when(editProduct, { ...teaOnWire, sku: 'CUP-1' }).thenErrors({ code: 'ERROR_SKU', field: 'sku' });
  });

  it('may rename its sku to a free one', () => {
    given(catalogue)
      .when(editProduct, { ...teaOnWire, sku: 'TEA-01' })
      .thenEvents([{ stream: 'product-1', type: 'ProductEdited', data: { id: 1, changes: { sku: 'TEA-01' } } }])
      .andResult({ id: 1, sku: 'TEA-01' });
  });

  it('keeps the reference rules: group, brand, and a parent that is neither missing nor itself', () => {
    given(catalogue).when(editProduct, { ...teaOnWire, categoryId: 4, brandId: 3 }).thenErrors(
      { code: 'ERROR_CATEGORY_ID', field: 'categoryId' },
      { code: 'ERROR_BRAND_ID', field: 'brandId' },
    );
    given(catalogue).when(editProduct, { ...teaOnWire, parent: 1 }).thenErrors({ code: 'ERROR_PARENT', field: 'parent' });
  });

  it('moving a product to category 0 makes it a service', () => {
    given(catalogue)
      .when(editProduct, { ...teaOnWire, categoryId: 0 })
      .thenEvents([{ stream: 'product-1', type: 'ProductEdited', data: { id: 1, changes: { categoryId: 0 } } }]);
  });

  it('the required fields of the edit path must be present', () => {
    given(catalogue).when(editProduct, { id: 1, sku: 'TEA-1' }).thenErrors({ code: 'ERROR_NAME', field: 'name' }, { code: 'ERROR_CATEGORY_ID', field: 'categoryId' });
  });
});

describe('update-product-prices', () => {
  it('changes only the prices that differ, and answers all three as they now are', () => {
    given(catalogue)
      .when(updatePrices, { sku: 'TEA-1', salePrice: 255, purchasePrice: 180, minPrice: 200 })
      .thenEvents([{ stream: 'product-1', type: 'ProductPricesUpdated', data: { id: 1, changes: { salePrice: 25500, minPrice: 20000 } } }])
      .andResult({ id: 1, sku: 'TEA-1', minPrice: 200, purchasePrice: 180, salePrice: 255 });
  });

  it('omitted prices stay, null clears one', () => {
    given(catalogue)
      .when(updatePrices, { sku: 'TEA-1', purchasePrice: null })
      .thenEvents([{ stream: 'product-1', type: 'ProductPricesUpdated', data: { id: 1, changes: { purchasePrice: null } } }])
      .andResult({ id: 1, sku: 'TEA-1', minPrice: null, purchasePrice: null, salePrice: 250.5 });
  });

  it('the current prices again append nothing', () => {
    given(catalogue).when(updatePrices, { sku: 'TEA-1', salePrice: 250.5, purchasePrice: 180 }).thenNothing().andResult({ id: 1, sku: 'TEA-1', minPrice: null, purchasePrice: 180, salePrice: 250.5 });
  });

  it('decides on the record as its later events left it: a sku changed by an edit is found under the new one only', () => {
    const history = {
      ...catalogue,
      events: [
        { stream: 'product-1', type: 'ProductEdited' as const, data: { id: 1, changes: { sku: 'TEA-9' } } },
        { stream: 'product-1', type: 'ProductPricesUpdated' as const, data: { id: 1, changes: { salePrice: 30000 } } },
      ],
    };
    given(history).when(updatePrices, { sku: 'TEA-9', salePrice: 300 }).thenNothing().andResult({ id: 1, sku: 'TEA-9', minPrice: null, purchasePrice: 180, salePrice: 300 });
    given(history).when(updatePrices, { sku: 'TEA-1', salePrice: 300 }).thenErrors({ code: 'ERROR_SKU', field: 'sku' });
  });

  it('an unknown sku is ERROR_SKU', () => {
    given(catalogue).when(updatePrices, { sku: 'NOPE', salePrice: 1 }).thenErrors({ code: 'ERROR_SKU', field: 'sku' });
  });

  it('a negative price is its field’s error', () => {
    given(catalogue).when(updatePrices, { sku: 'TEA-1', salePrice: -1 }).thenErrors({ code: 'ERROR_SALE_PRICE', field: 'salePrice' });
  });

  it('a state that knows the sku but not yet its product (a batch’s first round of reads) answers ERROR_SKU, not a throw', () => {
    const partlyKnown = { ...inMemoryState(), productIdBySku: () => 1 };
    const decision = decideUpdatePrices(UpdatePricesInput.parse({ sku: 'TEA-1', salePrice: 1 }), partlyKnown);
    expect(decision.ok ? decision.value : decision.errors).toMatchObject([{ code: 'ERROR_SKU', field: 'sku' }]);
  });
});

describe('import line: product', () => {
  it('with an id that exists edits that product', () => {
    given(catalogue)
      .when(importProduct, { ...teaOnWire, name: 'Чай чёрный байховый' })
      .thenEvents([{ stream: 'product-1', type: 'ProductEdited', data: { id: 1, changes: { name: 'Чай чёрный байховый' } } }]);
  });

  it('with an unknown id creates the product under that id, not the next one', () => {
    given(catalogue)
      .when(importProduct, { id: 40, sku: 'COF-1', name: 'Кофе', categoryId: 0 })
      .thenEvents([{ stream: 'product-40', type: 'ProductAdded', data: productRecord({ id: 40, sku: 'COF-1', name: 'Кофе' }), expectedVersion: 'no_stream' }])
      .andResult({ id: 40, sku: 'COF-1' });
  });

  it('without an id edits the product with its sku, so the same line again appends nothing', () => {
    const { id: _id, ...bySku } = teaOnWire;
    given(catalogue).when(importProduct, bySku).thenNothing().andResult({ id: 1, sku: 'TEA-1' });
    given(catalogue)
      .when(importProduct, { ...bySku, salePrice: 300 })
      .thenEvents([{ stream: 'product-1', type: 'ProductEdited', data: { id: 1, changes: { salePrice: 30000 } } }]);
  });

  it('without an id and with a new sku adds under the next id', () => {
    given(catalogue)
      .when(importProduct, { sku: 'COF-1', name: 'Кофе', categoryId: 0 })
      .thenEvents([{ stream: 'product-3', type: 'ProductAdded', data: productRecord({ id: 3, sku: 'COF-1', name: 'Кофе' }), expectedVersion: 'no_stream' }]);
  });

  it('a new id may not take the sku of another product', () => {
    given(catalogue).when(importProduct, { id: 40, sku: 'CUP-1', name: 'Кружка', categoryId: 0 }).thenErrors({ code: 'ERROR_SKU', field: 'sku' });
  });

  it('carries the import-only fields, in kopecks where they are money', () => {
    given()
      .when(importProduct, {
        id: 5,
        sku: 'MILK-1',
        name: 'Молоко',
        categoryId: 0,
        additionalPrices: [{ name: 'Опт', price: 79.9 }],
        packs: [{ unit: 'ящик', count: 12 }],
        additionalFields: [{ name: 'Жирность', value: '3,2%' }],
        files: ['milk.png'],
      })
      .thenEvents([
        {
          stream: 'product-5',
          type: 'ProductAdded',
          data: {
            ...productRecord({ id: 5, sku: 'MILK-1', name: 'Молоко' }),
            additionalPrices: [{ name: 'Опт', price: 7990 }],
            packs: [{ unit: 'ящик', count: 12, barcode: null }],
            additionalFields: [{ name: 'Жирность', value: '3,2%' }],
            files: ['milk.png'],
          },
          expectedVersion: 'no_stream',
        },
      ]);
  });
});
