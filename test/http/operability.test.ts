import { gunzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import type { AccessEntry } from '../../src/http/access-log.ts';
import { createApp } from '../../src/http/app.ts';
import { acceptsGzip } from '../../src/http/respond.ts';
import { ApiClient } from '../helpers.ts';
import { engineService as testService } from '../engine-service.ts';

describe('health', () => {
  test('/healthz and /readyz answer without a key; other methods are 405 with Allow', async () => {
    const { app } = await testService();
    for (const [path, body] of [
      ['/healthz', { status: 'ok' }],
      ['/readyz', { status: 'ready' }],
    ] as const) {
      const res = await app.request(path);
      expect([path, res.status, await res.json()]).toEqual([path, 200, body]);
      const post = await app.request(path, { method: 'POST' });
      expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    }
  });

  test('/readyz is 503 with Retry-After while the server shuts down, and when the database cannot be read', async () => {
    const { tb } = await testService();
    let shuttingDown = false;
    const app = createApp(tb, { shuttingDown: () => shuttingDown });
    expect((await app.request('/readyz')).status).toBe(200);
    shuttingDown = true;
    const draining = await app.request('/readyz');
    expect([draining.status, draining.headers.get('retry-after'), (await draining.json()).errors[0]]).toEqual([
      503,
      '5',
      { code: 'ERROR_NOT_READY', message: 'the server is shutting down' },
    ]);
    shuttingDown = false;
    tb.close();
    const closed = await app.request('/readyz');
    expect(closed.status).toBe(503);
    expect((await closed.json()).errors[0].message).toMatch(/^the database cannot be read/);
    // Alive all the same: the process answers.
    expect((await app.request('/healthz')).status).toBe(200);
  });
});

describe('headers the status calls for', () => {
  test('a 401 names the scheme (WWW-Authenticate), for a missing key, a wrong key and a refused token', async () => {
    const { app, api } = await testService();
    for (const headers of [{}, { Authorization: 'Bearer wrong' }] as Record<string, string>[]) {
      const res = await app.request('/api/products', { headers });
      expect([res.status, res.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="tradebook"']);
    }
    const refused = await api.post('/api/add-product-brand', { brand: [{ name: 'x' }] }, 'no-such-token');
    expect([refused.status, refused.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="tradebook"']);
  });

  test('a 405 lists the methods the path answers (Allow)', async () => {
    const { api } = await testService();
    expect((await api.request('DELETE', '/api/products')).headers.get('allow')).toBe('GET, HEAD');
    expect((await api.request('PUT', '/api/add-product')).headers.get('allow')).toBe('GET, POST');
    expect((await api.request('GET', '/api/contractor')).headers.get('allow')).toBe('POST');
  });
});

describe('compression', () => {
  test('a client that accepts gzip gets a large answer gzipped, byte for byte the plain one; a small one or a refusal of gzip goes plain', async () => {
    const { api } = await testService();
    await api.write('/api/add-product-brand', 'brand', Array.from({ length: 50 }, (_, i) => ({ name: `Бренд номер ${i}` })));
    const plain = await api.get('/api/product-brands');
    expect(plain.text.length).toBeGreaterThan(1024);
    const zipped = await api.app.request('/api/product-brands', { headers: { Authorization: `Bearer ${api.key}`, 'Accept-Encoding': 'br, gzip' } });
    expect([zipped.headers.get('content-encoding'), zipped.headers.get('vary')]).toEqual(['gzip', 'Accept-Encoding']);
    const bytes = Buffer.from(await zipped.arrayBuffer());
    expect(bytes.length).toBeLessThan(plain.text.length / 3);
    expect(gunzipSync(bytes).toString('utf8')).toBe(plain.text);
    const refused = await api.get('/api/product-brands', { 'Accept-Encoding': 'gzip;q=0' });
    expect([refused.headers.get('content-encoding'), refused.text]).toEqual([null, plain.text]);
    const small = await api.get('/api/products?limit=1', { 'Accept-Encoding': 'gzip' });
    expect(small.headers.get('content-encoding')).toBeNull();
  });

  test('Accept-Encoding is read by its codings and q-values', () => {
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('deflate, GZIP;q=0.5')).toBe(true);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('gzip;q=0, br')).toBe(false);
    expect(acceptsGzip('br, deflate')).toBe(false);
    expect(acceptsGzip('x-gzip-not')).toBe(false);
  });
});

describe('the access log', () => {
  test('one entry a request: request id (the client’s or a new one, echoed), method, path, status, duration, key id; never a key or token', async () => {
    const { tb, key } = await testService();
    const entries: AccessEntry[] = [];
    const api = new ApiClient(createApp(tb, { accessLog: (entry) => entries.push(entry) }), key);
    const given = await api.get('/api/products?limit=1', { 'X-Request-Id': 'client-42.a:b' });
    expect(given.headers.get('x-request-id')).toBe('client-42.a:b');
    const token = await api.token('/api/add-product-brand');
    await api.post('/api/add-product-brand', { brand: [{ name: 'Логи' }] }, token);
    const odd = await api.get('/api/products', { 'X-Request-Id': 'has spaces and {braces}' });
    await api.app.request('/api/products');
    expect(entries.map(({ method, path, status, keyId }) => [method, path, status, keyId])).toEqual([
      ['GET', '/api/products', 200, 1],
      ['GET', '/api/add-product-brand', 200, 1],
      ['POST', '/api/add-product-brand', 200, 1],
      ['GET', '/api/products', 200, 1],
      ['GET', '/api/products', 401, undefined],
    ]);
    expect(entries[0].reqId).toBe('client-42.a:b');
    // A request id that is not a plain token is replaced, and the new one is what the client is told.
    expect(entries[3].reqId).toMatch(/^[0-9a-f-]{36}$/);
    expect(odd.headers.get('x-request-id')).toBe(entries[3].reqId);
    expect(new Set(entries.map((e) => e.reqId)).size).toBe(entries.length);
    for (const entry of entries) expect(entry.ms).toBeGreaterThanOrEqual(0);
    const logged = JSON.stringify(entries);
    expect(logged).not.toContain(key);
    expect(logged).not.toContain(token);
  });
});
