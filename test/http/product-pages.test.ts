import { describe, expect, it } from 'vitest';
import { importLines } from '../../src/use-cases/import.ts';
import { MAX_BODY_BYTES } from '../../src/http/app.ts';
import { engineService as testService } from '../engine-service.ts';

/** Adds `n` products through the API, ten a batch (the path's limit), with names outside ASCII. */
async function withProducts(n: number) {
  const service = await testService();
  for (let first = 1; first <= n; first += 10) {
    const batch = Array.from({ length: Math.min(10, n - first + 1) }, (_, i) => ({ name: `Товар «${first + i}» — ёмкость`, sku: `S${first + i}`, categoryId: 0, salePrice: 10.5 }));
    const res = await service.api.write('/api/add-product', 'products', batch);
    expect(res.status).toBe(200);
  }
  return service;
}

describe('the product list, pages joined by the database', () => {
  it('gives every record whole and in id order at any offset, with the envelope counting them', async () => {
    const { api } = await withProducts(25);
    const page = await api.get('/api/products?limit=10&offset=20');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(page.body.meta).toEqual({ allCount: 25, count: 5, limit: 10, offset: 20 });
    expect(page.body.data.map((p: { sku: string }) => p.sku)).toEqual(['S21', 'S22', 'S23', 'S24', 'S25']);
    expect(page.body.data[0]).toMatchObject({ id: 21, name: 'Товар «21» — ёмкость', salePrice: 10.5, category: { id: 0, name: 'Услуга' } });

    const whole = await api.get('/api/products');
    expect(whole.body.data.map((p: { id: number }) => p.id)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  });

  it('keeps id order when products arrive out of it (imported ids below the highest)', async () => {
    const { api, tb } = await testService();
    async function* lines() {
      for (const id of [30, 10, 20, 5, 25]) yield JSON.stringify({ type: 'product', data: { id, name: `Товар ${id}`, sku: `I${id}`, categoryId: 0 } });
    }
    const report = await importLines(tb, lines(), () => {});
    expect(report.failed).toBe(0);
    expect((await api.get('/api/products')).body.data.map((p: { id: number }) => p.id)).toEqual([5, 10, 20, 25, 30]);
    const page = await api.get('/api/products?limit=3&offset=1');
    expect(page.body.meta).toEqual({ allCount: 5, count: 3, limit: 3, offset: 1 });
    expect(page.body.data.map((p: { id: number }) => p.id)).toEqual([10, 20, 25]);
  });

  it('answers an offset past the end with an empty page and the true count', async () => {
    const { api } = await withProducts(3);
    const page = await api.get('/api/products?offset=3');
    expect(page.body).toEqual({ meta: { allCount: 3, count: 0, limit: 100, offset: 3 }, data: [] });
  });

  it('answers an empty catalogue with an empty page', async () => {
    const { api } = await testService();
    expect((await api.get('/api/products')).body).toEqual({ meta: { allCount: 0, count: 0, limit: 100, offset: 0 }, data: [] });
  });

  it('still rejects bad paging with ERROR_LIMIT / ERROR_OFFSET', async () => {
    const { api } = await testService();
    const limit = await api.get('/api/products?limit=101');
    expect(limit.status).toBe(400);
    expect(limit.body.errors[0].code).toBe('ERROR_LIMIT');
    const offset = await api.get('/api/products?offset=-1');
    expect(offset.status).toBe(400);
    expect(offset.body.errors[0].code).toBe('ERROR_OFFSET');
  });
});

describe('the body limit, applied to the POSTs that carry bodies', () => {
  it('refuses a POST larger than 1 MiB with 413 ERROR_BODY_TOO_LARGE and applies nothing', async () => {
    const { api } = await testService();
    const token = await api.token('/api/add-product');
    const big = JSON.stringify({ products: [{ name: 'x'.repeat(MAX_BODY_BYTES), sku: 'BIG', categoryId: 0 }] });
    const res = await api.request('POST', '/api/add-product', { raw: big, headers: { 'X-Access-Token': token } });
    expect(res.status).toBe(413);
    expect(res.body.errors[0].code).toBe('ERROR_BODY_TOO_LARGE');
    expect((await api.get('/api/products')).body.meta.allCount).toBe(0);
  });
});
