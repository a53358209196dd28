import { expect, it } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { ApiClient, openSqliteCompany, testService } from '../helpers.ts';

it('an issued token is committed for every connection at once', async () => {
  const { api, file, key } = await testService();
  const token = await api.token('/api/add-product-brand');
  // A second process (here: a second connection) honours the token the first one issued.
  const other = await openSqliteCompany(file);
  try {
    const res = await new ApiClient(createApp(other), key).post('/api/add-product-brand', { brand: [{ name: 'Бренд' }] }, token);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([{ id: 1, name: 'Бренд' }]);
  } finally {
    other.close();
  }
});
