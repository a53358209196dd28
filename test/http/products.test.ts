import { describe, expect, test } from 'vitest';
import type { ApiClient } from '../helpers.ts';
import { engineService as testService } from '../engine-service.ts';

const product = (sku: string, extra: Record<string, unknown> = {}) => ({ name: `Товар ${sku}`, sku, categoryId: 0, ...extra });
const codes = (body: { errors: { code: string }[] }) => body.errors.map((e) => e.code);

async function addProducts(api: ApiClient, count: number, prefix = 'P') {
  for (let i = 0; i < count; i += 10) {
    const batch = Array.from({ length: Math.min(10, count - i) }, (_, k) => product(`${prefix}${i + k + 1}`));
    expect((await api.write('/api/add-product', 'products', batch)).status).toBe(200);
  }
}

describe('GET /api/products', () => {
  test('pages in id order with the envelope of the spec', async () => {
    const { api } = await testService();
    await addProducts(api, 25);
    const page = await api.get('/api/products?limit=10&offset=20');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(page.body.meta).toEqual({ allCount: 25, count: 5, limit: 10, offset: 20 });
    expect(page.body.data.map((p: { id: number }) => p.id)).toEqual([21, 22, 23, 24, 25]);
    const all = await api.get('/api/products');
    expect(all.body.meta).toEqual({ allCount: 25, count: 25, limit: 100, offset: 0 });
  });

  test('an offset past the end is an empty page with the true count', async () => {
    const { api } = await testService();
    await addProducts(api, 3);
    expect((await api.get('/api/products?offset=1000')).body).toEqual({ meta: { allCount: 3, count: 0, limit: 100, offset: 1000 }, data: [] });
  });

  test.each([
    ['limit=0', 'ERROR_LIMIT'],
    ['limit=101', 'ERROR_LIMIT'],
    ['limit=abc', 'ERROR_LIMIT'],
    ['limit=1.5', 'ERROR_LIMIT'],
    ['limit=1e2', 'ERROR_LIMIT'],
    ['limit=+5', 'ERROR_LIMIT'],
    ['limit=', 'ERROR_LIMIT'],
    ['offset=-1', 'ERROR_OFFSET'],
    ['offset=x', 'ERROR_OFFSET'],
    ['offset=99999999999999999', 'ERROR_OFFSET'],
  ])('%s is a 400 %s', async (query, code) => {
    const { api } = await testService();
    const res = await api.get(`/api/products?${query}`);
    expect(res.status).toBe(400);
    expect(codes(res.body)).toEqual([code]);
  });

  test.each([['limit=1'], ['limit=100'], ['offset=0']])('%s is accepted', async (query) => {
    const { api } = await testService();
    expect((await api.get(`/api/products?${query}`)).status).toBe(200);
  });

  test('every field of the resource is present, unset ones null', async () => {
    const { api } = await testService();
    await api.write('/api/add-product', 'products', [product('S1')]);
    const [p] = (await api.get('/api/products')).body.data;
    expect(p).toEqual({
      id: 1,
      name: 'Товар S1',
      sku: 'S1',
      minPrice: null,
      purchasePrice: null,
      salePrice: null,
      unit: null,
      vat: null,
      order: null,
      code: null,
      weight: null,
      dimensionX: null,
      dimensionY: null,
      dimensionZ: null,
      parent: null,
      brand: null,
      category: { id: 0, name: 'Услуга' },
      barcodes: [],
    });
  });
});

describe('GET /api/product', () => {
  test('reads one product with the single-read fields, by id or sku; id wins', async () => {
    const { api } = await testService();
    await addProducts(api, 2);
    const byId = await api.get('/api/product?id=2');
    expect(byId.status).toBe(200);
    expect(byId.body.data).toMatchObject({ id: 2, sku: 'P2', additionalPrices: [], packs: [], additionalFields: [], files: [] });
    expect((await api.get('/api/product?sku=P1')).body.data.id).toBe(1);
    expect((await api.get('/api/product?id=2&sku=P1')).body.data.id).toBe(2);
  });

  test('a sku holding U+0000 is one no product has: 404, on every engine', async () => {
    const { api } = await testService();
    await api.write('/api/add-product', 'products', [product('A')]);
    const res = await api.get('/api/product?sku=A%00');
    expect([res.status, codes(res.body)]).toEqual([404, ['ERROR_SKU']]);
  });

  test('errors: neither key, a bad id, unknown id or sku', async () => {
    const { api } = await testService();
    await addProducts(api, 1);
    const cases: [string, number, string][] = [
      ['/api/product', 400, 'ERROR_ID'],
      ['/api/product?sku=', 400, 'ERROR_ID'],
      ['/api/product?id=0', 400, 'ERROR_ID'],
      ['/api/product?id=abc', 400, 'ERROR_ID'],
      ['/api/product?id=-3', 400, 'ERROR_ID'],
      ['/api/product?id=99', 404, 'ERROR_ID'],
      ['/api/product?sku=nope', 404, 'ERROR_SKU'],
    ];
    for (const [url, status, code] of cases) {
      const res = await api.get(url);
      expect([url, res.status, codes(res.body)]).toEqual([url, status, [code]]);
    }
  });
});

describe('add-product', () => {
  test('adds with every optional field and answers {id, sku} in batch order', async () => {
    const { api } = await testService();
    const group = await api.write('/api/add-product-category', 'category', [{ name: 'Молочка' }]);
    const brand = await api.write('/api/add-product-brand', 'brand', [{ name: 'Простоквашино' }]);
    const full = {
      ...product('M-1'),
      categoryId: group.body.data[0].id,
      brandId: brand.body.data[0].id,
      minPrice: 50,
      purchasePrice: 45.5,
      salePrice: 89.99,
      unit: 'шт',
      vat: 20,
      barcodes: ['4600000000001', '4600000000002'],
      order: 7,
      code: 1001,
      weight: 1.03,
      dimensionX: 7,
      dimensionY: 7,
      dimensionZ: 20.5,
    };
    const res = await api.write('/api/add-product', 'products', [full, product('M-2', { parent: 1 })]);
    expect(res.body).toEqual({ data: [{ id: 1, sku: 'M-1' }, { id: 2, sku: 'M-2' }] });
    const read = (await api.get('/api/product?id=1')).body.data;
    expect(read).toMatchObject({
      salePrice: 89.99,
      purchasePrice: 45.5,
      vat: 20,
      brand: { id: 1, name: 'Простоквашино' },
      category: { id: 1, name: 'Молочка' },
      barcodes: ['4600000000001', '4600000000002'],
      weight: 1.03,
      dimensionZ: 20.5,
    });
    expect((await api.get('/api/product?id=2')).body.data.parent).toBe(1);
  });

  test('10 records is a batch, 11 is ERROR_PRODUCTS', async () => {
    const { api } = await testService();
    const ten = Array.from({ length: 10 }, (_, i) => product(`T${i}`));
    expect((await api.write('/api/add-product', 'products', ten)).status).toBe(200);
    const eleven = Array.from({ length: 11 }, (_, i) => product(`E${i}`));
    const res = await api.write('/api/add-product', 'products', eleven);
    expect(res.status).toBe(400);
    expect(codes(res.body)).toEqual(['ERROR_PRODUCTS']);
    expect((await api.get('/api/products')).body.meta.allCount).toBe(10);
  });

  test.each([
    ['an empty batch', { products: [] }],
    ['no wrapper', { items: [product('A')] }],
    ['a wrapper that is not an array', { products: product('A') }],
    ['a body that is an array', [product('A')]],
    ['a record that is not an object', { products: [5] }],
  ])('%s is ERROR_PRODUCTS', async (_name, body) => {
    const { api } = await testService();
    const res = await api.post('/api/add-product', body, await api.token('/api/add-product'));
    expect(res.status).toBe(400);
    expect(codes(res.body)).toEqual(['ERROR_PRODUCTS']);
  });

  test('a body that is not JSON is ERROR_PRODUCTS, whatever its content type', async () => {
    const { api } = await testService();
    const token = await api.token('/api/add-product');
    const res = await api.request('POST', '/api/add-product', { raw: '{"products": [', headers: { 'X-Access-Token': token, 'Content-Type': 'text/plain' } });
    expect(res.status).toBe(400);
    expect(codes(res.body)).toEqual(['ERROR_PRODUCTS']);
    const ok = await api.request('POST', '/api/add-product', { raw: JSON.stringify({ products: [product('X')] }), headers: { 'X-Access-Token': token, 'Content-Type': 'text/plain' } });
    expect(ok.status).toBe(200);
  });

  test.each([
    ['name missing', { sku: 'A', categoryId: 0 }, 'ERROR_NAME'],
    ['name blank', product('A', { name: '   ' }), 'ERROR_NAME'],
    ['name of 501 characters', product('A', { name: 'я'.repeat(501) }), 'ERROR_NAME'],
    ['sku missing', { name: 'x', categoryId: 0 }, 'ERROR_SKU'],
    ['sku not a string', product('A', { sku: 12 }), 'ERROR_SKU'],
    ['sku of 256 characters', product('A', { sku: 'z'.repeat(256) }), 'ERROR_SKU'],
    ['categoryId missing', { name: 'x', sku: 'A' }, 'ERROR_CATEGORY_ID'],
    ['categoryId unknown', product('A', { categoryId: 5 }), 'ERROR_CATEGORY_ID'],
    ['categoryId a fraction', product('A', { categoryId: 1.5 }), 'ERROR_CATEGORY_ID'],
    ['categoryId a string', product('A', { categoryId: '1' }), 'ERROR_CATEGORY_ID'],
    ['negative price', product('A', { salePrice: -1 }), 'ERROR_SALE_PRICE'],
    ['price with 3 decimals', product('A', { minPrice: 1.005 }), 'ERROR_MIN_PRICE'],
    ['price as a string', product('A', { purchasePrice: '10' }), 'ERROR_PURCHASE_PRICE'],
    ['vat not a rate', product('A', { vat: 18 }), 'ERROR_VAT'],
    ['brand unknown', product('A', { brandId: 3 }), 'ERROR_BRAND_ID'],
    ['parent unknown', product('A', { parent: 3 }), 'ERROR_PARENT'],
    ['barcodes not an array', product('A', { barcodes: '46000' }), 'ERROR_BARCODES'],
    ['weight negative', product('A', { weight: -2 }), 'ERROR_WEIGHT'],
  ])('%s → %s', async (_name, record, code) => {
    const { api } = await testService();
    const res = await api.write('/api/add-product', 'products', [record]);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ code, index: 0 })]);
  });

  test('names count characters, not bytes: 500 Cyrillic letters are fine', async () => {
    const { api } = await testService();
    expect((await api.write('/api/add-product', 'products', [product('A', { name: 'я'.repeat(500) })])).status).toBe(200);
  });

  test('an invalid record in the middle applies nothing and every problem is listed with index and field', async () => {
    const { api, tb } = await testService();
    await addProducts(api, 1, 'OLD');
    const res = await api.write('/api/add-product', 'products', [product('N1'), product('OLD1'), { name: '', sku: 'N3', categoryId: 0, vat: 3 }, product('N1')]);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { index: number; field: string; code: string }) => [e.index, e.field, e.code])).toEqual([
      [1, 'sku', 'ERROR_SKU'],
      [2, 'name', 'ERROR_NAME'],
      [2, 'vat', 'ERROR_VAT'],
      [3, 'sku', 'ERROR_SKU'],
    ]);
    expect((await api.get('/api/products')).body.meta.allCount).toBe(1);
    expect(await tb.audit.lastSeq()).toBe(1);
  });

  test('text is stored and returned exactly', async () => {
    const { api } = await testService();
    const name = "Ёжик 🦔 'OR 1=1; -- ../../etc/passwd \u200b עברית";
    await api.write('/api/add-product', 'products', [product('U', { name })]);
    expect((await api.get('/api/product?sku=U')).body.data.name).toBe(name);
  });
});

describe('edit-product', () => {
  test('changes the fields given, keeps omitted ones and clears nulls', async () => {
    const { api } = await testService();
    await api.write('/api/add-product', 'products', [product('E1', { salePrice: 10, unit: 'кг', barcodes: ['1'] })]);
    const res = await api.write('/api/edit-product', 'products', [{ id: 1, name: 'Новое', sku: 'E1-new', categoryId: 0, unit: null }]);
    expect(res.body).toEqual({ data: [{ id: 1, sku: 'E1-new' }] });
    const p = (await api.get('/api/product?id=1')).body.data;
    expect(p).toMatchObject({ name: 'Новое', sku: 'E1-new', salePrice: 10, unit: null, barcodes: ['1'] });
    expect((await api.get('/api/product?sku=E1')).status).toBe(404);
  });

  test('products trading SKUs within one batch (through a third) keep them, whatever order their rows are written in', async () => {
    const { api } = await testService();
    await api.write('/api/add-product', 'products', [product('X'), product('Y')]);
    const res = await api.write('/api/edit-product', 'products', [
      { id: 1, ...product('Z') },
      { id: 2, ...product('X') },
      { id: 1, ...product('Y') },
    ]);
    expect(res.status).toBe(200);
    expect((await api.get('/api/product?sku=X')).body.data.id).toBe(2);
    expect((await api.get('/api/product?sku=Y')).body.data.id).toBe(1);
    expect((await api.get('/api/product?sku=Z')).status).toBe(404);
  });

  test('an edit that changes nothing appends no event', async () => {
    const { api, tb } = await testService();
    await api.write('/api/add-product', 'products', [product('S', { salePrice: 10 })]);
    await api.write('/api/edit-product', 'products', [{ id: 1, ...product('S'), salePrice: 10 }]);
    expect(await tb.audit.lastSeq()).toBe(1);
  });

  test.each([
    ['id missing', product('A'), 'ERROR_ID'],
    ['id unknown', { id: 42, ...product('A') }, 'ERROR_ID'],
    ['id not an integer', { id: 'one', ...product('A') }, 'ERROR_ID'],
    ['name missing', { id: 1, sku: 'A', categoryId: 0 }, 'ERROR_NAME'],
    ['sku taken by another product', { id: 1, ...product('B') }, 'ERROR_SKU'],
    ['categoryId unknown', { id: 1, ...product('A', { categoryId: 9 }) }, 'ERROR_CATEGORY_ID'],
    ['its own parent', { id: 1, ...product('A', { parent: 1 }) }, 'ERROR_PARENT'],
  ])('%s → %s', async (_name, record, code) => {
    const { api } = await testService();
    await api.write('/api/add-product', 'products', [product('A'), product('B')]);
    const res = await api.write('/api/edit-product', 'products', [record]);
    expect(res.status).toBe(400);
    expect(codes(res.body)).toEqual([code]);
  });
});

describe('update-product-prices', () => {
  test('updates by sku and answers all three prices after the update', async () => {
    const { api } = await testService();
    await api.write('/api/add-product', 'products', [product('A', { minPrice: 1, purchasePrice: 2, salePrice: 3 }), product('B')]);
    const res = await api.write('/api/update-product-prices', 'data', [
      { sku: 'A', salePrice: 3.5 },
      { sku: 'B', minPrice: 0.01, purchasePrice: 100 },
      { sku: 'A', minPrice: null },
    ]);
    expect(res.body).toEqual({
      data: [
        { id: 1, sku: 'A', minPrice: 1, purchasePrice: 2, salePrice: 3.5 },
        { id: 2, sku: 'B', minPrice: 0.01, purchasePrice: 100, salePrice: null },
        { id: 1, sku: 'A', minPrice: null, purchasePrice: 2, salePrice: 3.5 },
      ],
    });
    expect((await api.get('/api/product?sku=A')).body.data).toMatchObject({ minPrice: null, purchasePrice: 2, salePrice: 3.5 });
  });

  test('100 records is a batch, 101 is ERROR_DATA', async () => {
    const { api } = await testService();
    await api.write('/api/add-product', 'products', [product('A')]);
    const hundred = Array.from({ length: 100 }, (_, i) => ({ sku: 'A', salePrice: i }));
    expect((await api.write('/api/update-product-prices', 'data', hundred)).status).toBe(200);
    const res = await api.write('/api/update-product-prices', 'data', [...hundred, { sku: 'A', salePrice: 1 }]);
    expect([res.status, codes(res.body)]).toEqual([400, ['ERROR_DATA']]);
    expect((await api.get('/api/product?sku=A')).body.data.salePrice).toBe(99);
  });

  test('errors: empty batch, unknown or missing sku, bad price', async () => {
    const { api } = await testService();
    await api.write('/api/add-product', 'products', [product('A')]);
    expect(codes((await api.write('/api/update-product-prices', 'data', [])).body)).toEqual(['ERROR_DATA']);
    const res = await api.write('/api/update-product-prices', 'data', [{ sku: 'A', salePrice: 5 }, { sku: 'ZZ', salePrice: 1 }, { salePrice: 1 }, { sku: 'A', salePrice: -1 }]);
    expect(res.body.errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([
      [1, 'ERROR_SKU'],
      [2, 'ERROR_SKU'],
      [3, 'ERROR_SALE_PRICE'],
    ]);
    expect((await api.get('/api/product?sku=A')).body.data.salePrice).toBeNull();
  });
});
