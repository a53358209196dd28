import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { getRequestListener } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
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

describe('a page served by Node, written as the envelope and the database\'s bytes unjoined', () => {
  let server: http.Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  /** The raw answer over a socket: status, headers as sent (Date aside), body bytes. */
  async function served(app: { fetch: Parameters<typeof getRequestListener>[0] }) {
    const listener = getRequestListener(app.fetch, { hostname: 'localhost' });
    server = http.createServer((req, res) => void listener(req, res));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    return (path: string, headers: Record<string, string>, body?: string) =>
      new Promise<{ status: number; headers: string[]; body: Buffer }>((resolve, reject) => {
        const request = http.request({ host: '127.0.0.1', port, path, method: 'GET', headers, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const pairs = res.rawHeaders.flatMap((name, i) => (i % 2 === 0 && name !== 'Date' ? [`${name}: ${res.rawHeaders[i + 1]}`] : []));
            resolve({ status: res.statusCode!, headers: pairs, body: Buffer.concat(chunks) });
          });
        });
        request.on('error', reject);
        request.end(body);
      });
  }

  it('answers the bytes app.request answers, with the same headers, at any size and with gzip', async () => {
    const { app, key } = await withProducts(25);
    const get = await served(app);
    const auth = { Authorization: `Bearer ${key}` };
    for (const path of ['/api/products', '/api/products?limit=3&offset=2', '/api/products?offset=25', '/api/contractors']) {
      const expected = Buffer.from(await (await app.request(path, { headers: auth })).arrayBuffer());
      const answer = await get(path, auth);
      expect(answer.status).toBe(200);
      expect(answer.body.equals(expected)).toBe(true);
      expect(answer.headers).toEqual([
        'X-Content-Type-Options: nosniff',
        'Cache-Control: no-store',
        'Vary: Accept-Encoding',
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${expected.length}`,
        'Connection: close',
      ]);
      const zipped = await get(path, { ...auth, 'Accept-Encoding': 'gzip' });
      // Compressed from 1 KB on, its Content-Encoding set on Node's response as Vary is.
      const compressed = zipped.headers.includes('Content-Encoding: gzip');
      expect(compressed).toBe(expected.length >= 1024);
      const inflated = compressed ? gunzipSync(zipped.body) : zipped.body;
      expect(inflated.equals(expected)).toBe(true);
    }
    expect((await get('/api/products', { ...auth, 'Accept-Encoding': 'gzip' })).headers).toContain('Content-Encoding: gzip');
  });

  it('closes the connection after a page whose request carried a body left unread', async () => {
    const { app, key } = await withProducts(3);
    const get = await served(app);
    const answer = await get('/api/products', { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Content-Length': '15' }, '{"unread":true}');
    expect(answer.status).toBe(200);
    expect(answer.headers).toContain('Connection: close');
    expect(JSON.parse(answer.body.toString('utf8')).meta).toEqual({ allCount: 3, count: 3, limit: 100, offset: 0 });
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
