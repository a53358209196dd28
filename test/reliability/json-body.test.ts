import { expect, test } from 'vitest';
import { engineService as testService } from '../engine-service.ts';

// Both were found by the hostile-input tests: the first was a 500, the second stored U+FFFD for the bytes sent.

test('a body nested 100,000 deep is 400 with the wrapper error, not a 500', async () => {
  const { api } = await testService();
  const token = await api.token('/api/add-product');
  const res = await api.request('POST', '/api/add-product', { raw: `{"products":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, headers: { 'X-Access-Token': token } });
  expect(res.status).toBe(400);
  expect(res.body.errors[0].code).toBe('ERROR_PRODUCTS');
});

test('a body that is not valid UTF-8 is 400 with the wrapper error and nothing is stored', async () => {
  const { api, tb } = await testService();
  const token = await api.token('/api/add-product-brand');
  const body = Buffer.concat([Buffer.from('{"brand":[{"name":"'), Buffer.from([0xd0, 0xff, 0xfe]), Buffer.from('"}]}')]);
  const res = await api.app.request('/api/add-product-brand', { method: 'POST', headers: { Authorization: `Bearer ${api.key}`, 'X-Access-Token': token }, body });
  expect(res.status).toBe(400);
  expect((await res.json()).errors).toEqual([{ code: 'ERROR_BRAND', message: 'the body is not valid UTF-8' }]);
  expect(await tb.audit.lastSeq()).toBe(0);
  // The token was not spent by the refused body.
  expect((await api.post('/api/add-product-brand', { brand: [{ name: 'Ok' }] }, token)).status).toBe(200);
});
