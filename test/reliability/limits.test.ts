import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/http/app.ts';
import { manualClock, testService } from '../helpers.ts';
import { type ServerProcess, rawConnection, startServer } from '../server-process.ts';

const KEY = 'tb_limits_test_key_0123456789';
const HEADERS_TIMEOUT = 1500;
const REQUEST_TIMEOUT = 3000;

describe('limits on the real server', () => {
  let server: ServerProcess;
  // The dir must outlive the per-test cleanup, so it is made here and removed with the server.
  const dir = path.join(process.env.TMPDIR ?? '/tmp', `tradebook-limits-${process.pid}`);
  beforeAll(async () => {
    server = await startServer(path.join(dir, 'limits.db'), KEY, {
      TRADEBOOK_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT),
      TRADEBOOK_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT),
    });
  });
  afterAll(async () => {
    await server?.stop();
    (await import('node:fs')).rmSync(dir, { recursive: true, force: true });
  });

  test('a chunked body that never ends gets 413 after 1 MiB and the connection is closed', async () => {
    const c = rawConnection(server.port);
    c.socket.write(`POST /api/add-product HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${KEY}\r\nX-Access-Token: t\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const chunk = 'x'.repeat(64 * 1024);
    let sent = 0;
    let open = true;
    c.closed.then(() => (open = false));
    while (open && !c.received().includes('\r\n\r\n{')) {
      if (c.socket.writableLength < 256 * 1024) {
        c.socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
        sent += chunk.length;
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
      expect(sent).toBeLessThan(20 * MAX_BODY_BYTES);
    }
    expect(c.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(c.received()).toContain('"code":"ERROR_BODY_TOO_LARGE"');
    expect(c.received().toLowerCase()).toContain('connection: close');
    // The client goes on sending; the server hangs up at once instead of reading on until the request timeout.
    const answeredAt = Date.now();
    const keepSending = setInterval(() => c.socket.writable && c.socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`), 5);
    await c.closed;
    clearInterval(keepSending);
    expect(Date.now() - answeredAt).toBeLessThan(REQUEST_TIMEOUT / 2);
  });

  test('a declared Content-Length over 1 MiB gets 413 before any of the body is sent', async () => {
    const c = rawConnection(server.port);
    c.socket.write(`POST /api/add-product HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${KEY}\r\nX-Access-Token: t\r\nContent-Length: ${MAX_BODY_BYTES + 1}\r\n\r\n`);
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(c.received()).toContain('"code":"ERROR_BODY_TOO_LARGE"');
  });

  test('a client that stalls in its headers is cut off by the headers timeout', async () => {
    const c = rawConnection(server.port);
    c.socket.write(`GET /api/products HTTP/1.1\r\nHost: t\r\n`);
    const closedAfter = await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
    // Node checks its connections once a second; the default interval of 30 s let a stalled client stay 30 s.
    expect(closedAfter).toBeGreaterThanOrEqual(HEADERS_TIMEOUT - 100);
    expect(closedAfter).toBeLessThan(HEADERS_TIMEOUT + 2500);
  });

  test('a client that stalls in its body is cut off by the request timeout', async () => {
    const c = rawConnection(server.port);
    c.socket.write(`POST /api/add-product HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${KEY}\r\nX-Access-Token: t\r\nContent-Length: 100\r\n\r\n{"products":`);
    const closedAfter = await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedAfter).toBeGreaterThanOrEqual(REQUEST_TIMEOUT - 100);
    expect(closedAfter).toBeLessThan(REQUEST_TIMEOUT + 2500);
  });
});

test('a flood of token requests keeps the tokens table bounded: expired tokens are swept', async () => {
  const clock = manualClock();
  const { api, tb } = await testService({ clock });
  const count = () => tb.tokens.count();
  for (let i = 0; i < 200; i++) await api.get('/api/add-product');
  expect(await count()).toBe(200);
  clock.advance(61_000);
  for (let i = 0; i < 200; i++) await api.get('/api/add-product-brand');
  // Only the tokens still alive remain; a steady flood holds at most a minute's worth.
  expect(await count()).toBe(200);
  clock.advance(61_000);
  await api.get('/api/add-product');
  expect(await count()).toBe(1);
});

test('a refused token is answered without parsing its body: a 1 MiB body of 520,000 elements costs about what a small keyed request does', async () => {
  const { api } = await testService();
  const big = `{"products":[${new Array(520_000).fill(0).join(',')}]}`;
  expect(big.length).toBeLessThanOrEqual(MAX_BODY_BYTES);
  const refused = () => api.request('POST', '/api/add-product', { raw: big, headers: { 'X-Access-Token': 'made-up-token-made-up-token' } });
  const small = () => api.get('/api/products?limit=1');
  expect([(await refused()).status, (await refused()).body.errors[0].code]).toEqual([401, 'ERROR_ACCESS_TOKEN']);
  expect((await small()).status).toBe(200);
  const cpu = async (request: () => Promise<unknown>) => {
    const start = process.cpuUsage();
    for (let i = 0; i < 20; i++) await request();
    const used = process.cpuUsage(start);
    return used.user + used.system;
  };
  // The process's CPU counts its garbage collector's threads too: one round of each can land on a collection.
  // Five rounds, interleaved, and the median of each kind.
  const [refusedCpu, smallCpu]: number[][] = [[], []];
  for (let round = 0; round < 5; round++) {
    refusedCpu.push(await cpu(refused));
    smallCpu.push(await cpu(small));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[2];
  const ratio = median(refusedCpu) / median(smallCpu);
  // Parsing, normalising and hashing such a body first cost ~400 small requests' worth; what remains is mostly
  // handing 1 MiB to the app through a fetch Request (~8).
  expect(ratio).toBeLessThan(25);
});
