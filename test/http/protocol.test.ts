import { describe, expect, test } from 'vitest';
import { engineService as testService } from '../engine-service.ts';
import { workbenchCookie } from '../workbench-client.ts';

describe('the HTTP protocol around the endpoints', () => {
  test('reads answer with and without a trailing slash', async () => {
    const { api } = await testService();
    for (const path of ['/api/products/', '/api/product-brands/', '/api/product-categories/']) expect((await api.get(path)).status).toBe(200);
  });

  test('a known path with another method is 405, an unknown path 404, both with the error body', async () => {
    const { api } = await testService();
    const wrong = await api.request('DELETE', '/api/products');
    expect([wrong.status, wrong.body.errors[0].code]).toEqual([405, 'ERROR_METHOD_NOT_ALLOWED']);
    expect((await api.request('PUT', '/api/add-product')).status).toBe(405);
    const unknown = await api.get('/api/nothing-here');
    expect([unknown.status, unknown.body.errors[0].code]).toEqual([404, 'ERROR_NOT_FOUND']);
  });

  test('a body over 1 MiB is 413 ERROR_BODY_TOO_LARGE and applies nothing', async () => {
    const { api } = await testService();
    const token = await api.token('/api/add-product-brand');
    const big = JSON.stringify({ brand: [{ name: 'x'.repeat(1024 * 1024) }] });
    const res = await api.request('POST', '/api/add-product-brand', { raw: big, headers: { 'X-Access-Token': token } });
    expect([res.status, res.body.errors[0].code]).toEqual([413, 'ERROR_BODY_TOO_LARGE']);
    expect((await api.get('/api/product-brands')).body.meta.allCount).toBe(0);
  });

  test('the OpenAPI document needs no key and describes every endpoint', async () => {
    const { app } = await testService();
    const res = await app.request('/api/openapi.json');
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/products',
        '/api/product',
        '/api/product-categories',
        '/api/product-brands',
        '/api/add-product',
        '/api/edit-product',
        '/api/update-product-prices',
        '/api/add-product-category',
        '/api/edit-product-category',
        '/api/add-product-brand',
        '/api/edit-product-brand',
      ]),
    );
    const addProduct = doc.paths['/api/add-product'].post.requestBody.content['application/json'].schema;
    expect(addProduct.properties.products.maxItems).toBe(10);
    expect(addProduct.properties.products.items.required).toEqual(['name', 'sku', 'categoryId']);
    expect(doc.paths['/api/products'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['limit', 'offset']);
  });

  test('every answer says X-Content-Type-Options: nosniff: JSON, errors, pages, files, the reference and health', async () => {
    const { app, api, tb } = await testService();
    const { key: auditKey } = await tb.keys.create({ name: 'auditor', scope: 'audit' });
    const cookie = await workbenchCookie(app, auditKey);
    const answers = [
      await app.request('/api/products', { headers: { Authorization: `Bearer ${api.key}` } }),
      await app.request('/api/products'),
      await app.request('/api/nothing-here', { headers: { Authorization: `Bearer ${api.key}` } }),
      await app.request('/api/add-product', { method: 'POST', headers: { Authorization: `Bearer ${api.key}` }, body: 'x'.repeat(2 * 1024 * 1024) }),
      await app.request('/api/openapi.json'),
      await app.request('/healthz'),
      await app.request('/docs'),
      await app.request('/docs/swagger-ui-bundle.js'),
      await app.request('/audit/sign-in'),
      await app.request('/audit/workbench.css'),
      await app.request('/audit/log'),
      await app.request('/audit/log', { headers: { Cookie: cookie } }),
      await app.request('/audit/statement.csv?contractor=1&dateFrom=2026-01-01&dateTo=2026-12-31', { headers: { Cookie: cookie } }),
    ];
    expect(answers.map((res) => `${res.status} ${res.headers.get('x-content-type-options')}`)).toEqual(
      [200, 401, 404, 413, 200, 200, 200, 200, 200, 200, 303, 200, 404].map((status) => `${status} nosniff`),
    );
  });
});

