import http from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { afterEach, expect, test } from 'vitest';
import { testService } from '../helpers.ts';

const codes = (res: { body: { errors: { code: string }[] } }) => res.body.errors.map((e) => e.code);

test('every bad parameter of a query is its own error, all in one 400', async () => {
  const { api } = await testService();
  const res = await api.get('/api/sales?limit=0&offset=x&status=2&dateFrom=2026-13-01');
  expect(res.status).toBe(400);
  expect(codes(res)).toEqual(['ERROR_LIMIT', 'ERROR_OFFSET', 'ERROR_DATEFROM', 'ERROR_STATUS']);
});

test('a parameter given twice counts with its first value', async () => {
  const { api } = await testService();
  expect((await api.get('/api/contractors?limit=1&limit=abc')).body.meta).toEqual({ allCount: 0, count: 0, limit: 1, offset: 0 });
  expect(codes(await api.get('/api/contractors?limit=abc&limit=1'))).toEqual(['ERROR_LIMIT']);
});

test('the key is checked before the query is looked at', async () => {
  const { app } = await testService();
  const res = await app.request('/api/contractors?limit=0', { headers: { Authorization: 'Bearer tb_not_a_key' } });
  expect(res.status).toBe(401);
});

let server: http.Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

test('served by Node (the validator reading its headers from Node’s request): the same answers', async () => {
  const { app, key } = await testService();
  const listener = getRequestListener(app.fetch, { hostname: 'localhost' });
  server = http.createServer((req, res) => void listener(req, res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const get = (path: string) =>
    new Promise<{ status: number; body: { meta?: unknown; errors?: { code: string }[] } }>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'text/plain' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      }).on('error', reject);
    });
  expect(await get('/api/contractors?limit=2&limit=x')).toEqual({ status: 200, body: { meta: { allCount: 0, count: 0, limit: 2, offset: 0 }, data: [] } });
  const refused = await get('/api/products?limit=0&offset=-1');
  expect([refused.status, refused.body.errors!.map((e) => e.code)]).toEqual([400, ['ERROR_LIMIT', 'ERROR_OFFSET']]);
});

test('a parameter that is not a number is told what it must be, not that a pattern failed', async () => {
  const { api } = await testService();
  const messages = async (path: string) => ((await api.get(path)).body.errors as { message: string }[]).map((e) => e.message);
  expect(await messages('/api/products?limit=abc&offset=x')).toEqual([
    'limit: must be a whole number from 1 to 100, written in decimal',
    'offset: must be a whole number from 0, written in decimal',
  ]);
  expect(await messages('/api/product?id=abc')).toEqual(['id: must be a whole number from 1, written in decimal']);
});
