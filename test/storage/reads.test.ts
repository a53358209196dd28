import { expect, test } from 'vitest';
import { ok } from '../../src/lib/result.ts';
import { testService } from '../helpers.ts';

test('a read never sees a write that is not committed: the endpoints read on a connection of their own', async () => {
  const { tb, api } = await testService();
  let during: Promise<string[]> | undefined;
  await tb.write(async () => {
    await tb.log.append([{ stream: 'brand-1', type: 'BrandAdded', data: { id: 1, name: 'Новый', logo: null } }], { source: 'test' });
    // Asked while the transaction that appended the brand is still open.
    during = tb.brands.allJson();
    return ok(undefined);
  });
  expect(await during).toEqual([]);
  expect(await tb.brands.allJson()).toEqual(['{"id":1,"name":"Новый","logo":null}']);
  expect((await api.get('/api/product-brands')).body.data).toEqual([{ id: 1, name: 'Новый', logo: null }]);
});
