import { expect, test } from 'vitest';
import { testService } from './helpers.ts';

test('a product added through the API is listed', async () => {
  const { api } = await testService();
  const added = await api.write('/api/add-product', 'products', [{ name: 'Молоко', sku: 'M1', categoryId: 0 }]);
  expect(added.status).toBe(200);
  const list = await api.get('/api/products');
  expect(list.body.data.map((p: { sku: string }) => p.sku)).toEqual(['M1']);
});
