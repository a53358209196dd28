import { describe, expect, test } from 'vitest';
import { engineService as testService } from '../engine-service.ts';

const codes = (body: { errors: { code: string }[] }) => body.errors.map((e) => e.code);

describe('product groups', () => {
  test('the tree nests to any depth; allCount counts top-level groups', async () => {
    const { api } = await testService();
    const res = await api.write('/api/add-product-category', 'category', [
      { name: 'Продукты' },
      { name: 'Молочные', parent: 1 },
      { name: 'Сыры', parent: 2 },
      { name: 'Бытовая химия', parent: 0 },
      { name: 'Молочные', parent: 4 },
    ]);
    expect(res.body.data.map((c: { id: number }) => c.id)).toEqual([1, 2, 3, 4, 5]);
    const tree = await api.get('/api/product-categories/');
    expect(tree.body).toEqual({
      meta: { allCount: 2 },
      data: [
        { id: 1, name: 'Продукты', children: [{ id: 2, name: 'Молочные', children: [{ id: 3, name: 'Сыры', children: [] }] }] },
        { id: 4, name: 'Бытовая химия', children: [{ id: 5, name: 'Молочные', children: [] }] },
      ],
    });
  });

  test('an edit renames and moves; without parent the group stays where it is', async () => {
    const { api } = await testService();
    await api.write('/api/add-product-category', 'category', [{ name: 'A' }, { name: 'B' }, { name: 'C', parent: 1 }]);
    await api.write('/api/edit-product-category', 'category', [{ id: 3, name: 'C2' }]);
    await api.write('/api/edit-product-category', 'category', [{ id: 1, name: 'A', parent: 2 }]);
    const tree = (await api.get('/api/product-categories')).body;
    expect(tree.data).toEqual([{ id: 2, name: 'B', children: [{ id: 1, name: 'A', children: [{ id: 3, name: 'C2', children: [] }] }] }]);
  });

  test('a renamed group is renamed in its products too', async () => {
    const { api } = await testService();
    await api.write('/api/add-product-category', 'category', [{ name: 'Old' }]);
    await api.write('/api/add-product', 'products', [{ name: 'p', sku: 'p', categoryId: 1 }]);
    await api.write('/api/edit-product-category', 'category', [{ id: 1, name: 'New' }]);
    expect((await api.get('/api/products')).body.data[0].category).toEqual({ id: 1, name: 'New' });
  });

  test.each([
    ['a blank name', [{ name: ' ' }], 'ERROR_CATEGORY_NAME'],
    ['no name', [{ parent: 0 }], 'ERROR_CATEGORY_NAME'],
    ['a sibling with that name', [{ name: 'A' }], 'ERROR_CATEGORY_NAME'],
    ['an unknown parent', [{ name: 'Z', parent: 77 }], 'ERROR_CATEGORY_ID'],
    ['a negative parent', [{ name: 'Z', parent: -1 }], 'ERROR_CATEGORY_ID'],
  ])('add with %s → %s', async (_name, records, code) => {
    const { api } = await testService();
    await api.write('/api/add-product-category', 'category', [{ name: 'A' }]);
    const res = await api.write('/api/add-product-category', 'category', records);
    expect([res.status, codes(res.body)]).toEqual([400, [code]]);
  });

  test.each([
    ['an unknown id', { id: 9, name: 'x' }, 'ERROR_CATEGORY_ID'],
    ['no id', { name: 'x' }, 'ERROR_CATEGORY_ID'],
    ['no name', { id: 1 }, 'ERROR_CATEGORY_NAME'],
    ['itself as parent', { id: 1, name: 'A', parent: 1 }, 'ERROR_CATEGORY_ID'],
    ['its own descendant as parent', { id: 1, name: 'A', parent: 4 }, 'ERROR_CATEGORY_ID'],
    ['a name its new siblings use', { id: 4, name: 'B', parent: 0 }, 'ERROR_CATEGORY_NAME'],
  ])('edit with %s → %s', async (_name, record, code) => {
    const { api } = await testService();
    // 1 A ─ 2 B ─ 4 C, and 3 B at the top level
    await api.write('/api/add-product-category', 'category', [{ name: 'A' }, { name: 'B', parent: 1 }, { name: 'B' }, { name: 'C', parent: 2 }]);
    const res = await api.write('/api/edit-product-category', 'category', [record]);
    expect([res.status, codes(res.body)]).toEqual([400, [code]]);
  });

  test('a batch may add a group and then a subgroup of it; 100 records pass, 101 are ERROR_CATEGORY', async () => {
    const { api } = await testService();
    const chain = Array.from({ length: 100 }, (_, i) => ({ name: `L${i}`, parent: i }));
    expect((await api.write('/api/add-product-category', 'category', chain)).status).toBe(200);
    const res = await api.write('/api/add-product-category', 'category', Array.from({ length: 101 }, (_, i) => ({ name: `X${i}` })));
    expect([res.status, codes(res.body)]).toEqual([400, ['ERROR_CATEGORY']]);
    expect(codes((await api.write('/api/edit-product-category', 'category', [])).body)).toEqual(['ERROR_CATEGORY']);
  });
});

describe('brands', () => {
  test('lists every brand, ignoring paging parameters', async () => {
    const { api } = await testService();
    await api.write('/api/add-product-brand', 'brand', [{ name: 'Alpha' }, { name: 'Бета', logo: 'https://example.com/b.png' }]);
    const res = await api.get('/api/product-brands?limit=1&offset=1');
    expect(res.body).toEqual({
      meta: { allCount: 2 },
      data: [
        { id: 1, name: 'Alpha', logo: null },
        { id: 2, name: 'Бета', logo: 'https://example.com/b.png' },
      ],
    });
  });

  test('a renamed brand is renamed in its products', async () => {
    const { api } = await testService();
    await api.write('/api/add-product-brand', 'brand', [{ name: 'Old' }]);
    await api.write('/api/add-product', 'products', [{ name: 'p', sku: 'p', categoryId: 0, brandId: 1 }]);
    expect((await api.write('/api/edit-product-brand', 'brand', [{ id: 1, name: 'New' }])).body).toEqual({ data: [{ id: 1, name: 'New' }] });
    expect((await api.get('/api/product?id=1')).body.data.brand).toEqual({ id: 1, name: 'New' });
  });

  test('errors of add and edit', async () => {
    const { api, tb } = await testService();
    await api.write('/api/add-product-brand', 'brand', [{ name: 'A' }, { name: 'B' }]);
    const before = await tb.audit.lastSeq();
    const cases: [string, unknown[], string[]][] = [
      ['/api/add-product-brand', [], ['ERROR_BRAND']],
      ['/api/add-product-brand', [{ name: 'A' }], ['ERROR_BRAND_NAME']],
      ['/api/add-product-brand', [{ name: '' }], ['ERROR_BRAND_NAME']],
      ['/api/add-product-brand', [{ name: 'C' }, { name: 'C' }], ['ERROR_BRAND_NAME']],
      ['/api/edit-product-brand', [{ id: 5, name: 'Z' }], ['ERROR_BRAND_ID']],
      ['/api/edit-product-brand', [{ name: 'Z' }], ['ERROR_BRAND_ID']],
      ['/api/edit-product-brand', [{ id: 2, name: 'A' }], ['ERROR_BRAND_NAME']],
    ];
    for (const [path, records, expected] of cases) {
      const res = await api.write(path, 'brand', records);
      expect([path, res.status, codes(res.body)]).toEqual([path, 400, expected]);
    }
    expect(await tb.audit.lastSeq()).toBe(before);
  });
});
