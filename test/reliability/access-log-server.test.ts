import path from 'node:path';
import { expect, test } from 'vitest';
import { openSqliteCompany, tempDir, until } from '../helpers.ts';
import { HttpClient, partlySentRequest, startServer } from '../server-process.ts';

const KEY = 'tb_access_log_test_key_0123456789';

/** The server's log lines so far, parsed. */
const linesOf = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

test("the real server's line carries what the app learned (key, what an auditor read) and Node's own (client, request id, headers)", async () => {
  const file = path.join(tempDir(), 'fields.db');
  const tb = await openSqliteCompany(file);
  const { id: auditId, key: auditKey } = await tb.keys.create({ name: 'auditor', scope: 'audit' });
  await tb.close();
  const server = await startServer(file, KEY);
  try {
    const audit = await new HttpClient(server.url, auditKey).request('GET', '/api/history?stream=product-1', undefined, { 'X-Request-Id': 'audit-read-1' });
    expect(audit.status).toBe(404); // no such record yet: still a read of the trail
    expect([audit.headers.get('x-request-id'), audit.headers.get('x-content-type-options'), audit.headers.get('vary')]).toEqual(['audit-read-1', 'nosniff', 'Accept-Encoding']);
    const refused = await new HttpClient(server.url, 'tb_not_a_key').request('GET', '/api/products/', undefined, { 'X-Request-Id': 'refused-1' });
    expect([refused.status, refused.headers.get('x-request-id'), refused.headers.get('x-content-type-options')]).toEqual([401, 'refused-1', 'nosniff']);
    await until(() => linesOf(server.output()).some((line) => line.reqId === 'refused-1'));
    const lines = linesOf(server.output());
    expect(lines.find((line) => line.reqId === 'audit-read-1')).toMatchObject({
      level: 'info',
      msg: 'request',
      method: 'GET',
      path: '/api/history',
      status: 404,
      keyId: auditId,
      client: '127.0.0.1',
      read: '/api/history?stream=product-1',
    });
    // No key learned, no key in the line; the path as the app routes it (no trailing slash).
    const line = lines.find((l) => l.reqId === 'refused-1')!;
    expect(line).toMatchObject({ path: '/api/products', status: 401, client: '127.0.0.1' });
    expect(Object.keys(line).sort()).toEqual(['client', 'level', 'method', 'ms', 'msg', 'path', 'reqId', 'status', 'time']);
  } finally {
    await server.stop();
  }
});

test('a request the server finishes while shutting down has its line, whole, before the last', async () => {
  const server = await startServer(path.join(tempDir(), 'in-flight.db'), KEY);
  const client = new HttpClient(server.url, KEY);
  const token = (await client.request('GET', '/api/add-product-brand')).body.data.access_token;

  // Half a request is on the wire when the signal arrives.
  const bytes = Buffer.from(JSON.stringify({ brand: [{ name: 'Последний' }] }));
  const head = `POST /api/add-product-brand HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${KEY}\r\nX-Access-Token: ${token}\r\nX-Request-Id: in-flight-1\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\n\r\n`;
  const request = await partlySentRequest(server.port, head, bytes, 10);
  server.child.kill('SIGTERM');
  await until(() => server.output().includes('SIGTERM: finishing requests in flight'));

  const received = await request.rest();
  expect(received).toMatch(/^HTTP\/1\.1 200 /);
  expect(await server.exited).toBe(0);

  const lines = linesOf(server.output());
  const inFlight = lines.findIndex((line) => line.reqId === 'in-flight-1');
  expect(lines[inFlight]).toMatchObject({ method: 'POST', path: '/api/add-product-brand', status: 200, keyId: 1, client: '127.0.0.1' });
  expect(inFlight).toBeGreaterThan(lines.findIndex((line) => String(line.msg).startsWith('SIGTERM')));
  expect(lines.at(-1)!.msg).toBe('closed');
});
