import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect, test } from 'vitest';
import { openSqliteCompany, tempDir } from '../helpers.ts';
import { HttpClient, partlySentRequest, startServer } from '../server-process.ts';

const KEY = 'tb_shutdown_test_key_0123456789';

function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

test('SIGTERM stops accepting, lets the batch in flight complete, and closes the database cleanly', async () => {
  const file = path.join(tempDir(), 'shutdown.db');
  const server = await startServer(file, KEY);
  const client = new HttpClient(server.url, KEY);
  const token = (await client.request('GET', '/api/add-product-brand')).body.data.access_token;

  // Half a request is on the wire when the signal arrives.
  const bytes = Buffer.from(JSON.stringify({ brand: [{ name: 'В пути' }, { name: 'Тоже в пути' }] }));
  const head = `POST /api/add-product-brand HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${KEY}\r\nX-Access-Token: ${token}\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\n\r\n`;
  const request = await partlySentRequest(server.port, head, bytes, 10);

  server.child.kill('SIGTERM');
  // It stops listening at once.
  let refused = false;
  for (const deadline = Date.now() + 5000; !refused && Date.now() < deadline; ) refused = await connectionRefused(server.port);
  expect(refused).toBe(true);
  expect(server.child.exitCode).toBeNull(); // still finishing the request in flight

  // The rest of the body.
  const received = await request.rest();
  expect(received).toMatch(/^HTTP\/1\.1 200 /);
  expect(received).toContain('"name":"Тоже в пути"');
  expect(await server.exited).toBe(0);
  expect(server.output()).toContain('closed');

  // Closed cleanly: the last connection checkpointed and removed the write-ahead log.
  expect(fs.existsSync(`${file}-wal`)).toBe(false);
  const tb = await openSqliteCompany(file);
  expect(await tb.audit.eventsAfter(0, 10, { type: 'BrandAdded' })).toHaveLength(2);
  tb.close();
});

test('the access log: request ids echoed, a quiet server writes a line within moments, and every request answered before SIGTERM has its line, whole, before the last', async () => {
  const server = await startServer(path.join(tempDir(), 'lines.db'), KEY);
  const client = new HttpClient(server.url, KEY);
  const lines = () =>
    server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const quiet = await client.request('GET', '/api/products?limit=1', undefined, { 'X-Request-Id': 'quiet-1' });
  expect([quiet.status, quiet.headers.get('x-request-id')]).toEqual([200, 'quiet-1']);
  const made = (await client.request('GET', '/api/nothing-here')).headers.get('x-request-id');
  expect(made).toMatch(/^[0-9a-f-]{36}$/);
  const started = Date.now();
  while (!lines().some((line) => line.reqId === 'quiet-1')) {
    expect(Date.now() - started).toBeLessThan(2000);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }

  // More lines than one write gathers, then the signal at once: the rest are written as the process exits.
  for (let i = 0; i < 60; i++) expect((await client.request('GET', `/api/product?id=${i + 1}`, undefined, { 'X-Request-Id': `busy-${i}` })).status).toBe(404);
  expect(await server.stop()).toBe(0);
  const requests = lines().filter((line) => line.msg === 'request' && String(line.reqId).startsWith('busy-'));
  expect(requests.map((line) => line.reqId)).toEqual(Array.from({ length: 60 }, (_, i) => `busy-${i}`));
  for (const line of requests) {
    expect(Object.keys(line).sort()).toEqual(['client', 'keyId', 'level', 'method', 'ms', 'msg', 'path', 'reqId', 'status', 'time']);
    expect(line).toMatchObject({ level: 'info', method: 'GET', path: '/api/product', status: 404, keyId: 1 });
  }
  expect(lines().find((line) => line.reqId === made)).toMatchObject({ path: '/api/nothing-here', status: 404 });
  expect(lines().at(-1)!.msg).toBe('closed');
});
