import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openSqliteCompany, tempDir, until } from '../helpers.ts';
import { type ServerProcess, rawConnection, runToExit, serverEnd, startServer } from '../server-process.ts';

const KEY = 'tb_http_edge_test_key_0123456789';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A raw HTTP answer: status, headers (names in lower case) and body. */
function parseAnswer(text: string) {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = text.slice(0, end < 0 ? text.length : end).split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { statusLine, status: Number(statusLine.split(' ')[1]), headers, body: end < 0 ? '' : text.slice(end + 4) };
}

/** The answer is the API's error form: JSON `{"errors":[{code, message}]}` with the JSON content type. */
function expectErrorForm(text: string, status: number, code: string) {
  const answer = parseAnswer(text);
  expect(answer.status, text).toBe(status);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(JSON.parse(answer.body)).toEqual({ errors: [{ code, message: expect.any(String) }] });
  return answer;
}

/** Sends `request` on a fresh connection and resolves with everything received once the server closes it. */
async function exchange(port: number, request: string | Buffer): Promise<string> {
  const c = rawConnection(port);
  c.socket.write(request);
  await c.closed;
  return c.received();
}

const vmRss = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

describe('the HTTP edge of the real server', () => {
  let server: ServerProcess;
  const dir = path.join(process.env.TMPDIR ?? '/tmp', `tradebook-http-edge-${process.pid}`);
  const file = path.join(dir, 'edge.db');
  beforeAll(async () => {
    server = await startServer(file, KEY, {
      TRADEBOOK_HEADERS_TIMEOUT_MS: '1500',
      TRADEBOOK_REQUEST_TIMEOUT_MS: '3000',
      // The flood below comes from one address.
      TRADEBOOK_MAX_CONNECTIONS_PER_CLIENT: '1000',
    });
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const token = async (writePath: string) =>
    ((await (await fetch(`${server.url}${writePath}`, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as { data: { access_token: string } }).data.access_token;

  test('hundreds of connections without a key, each sending ~1 MB of a body that never ends, do not grow the server', async () => {
    const pid = server.child.pid!;
    const before = vmRss(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, vmRss(pid))), 20);
    const body = Buffer.alloc(1_000_000, 'x');
    const connections = Array.from({ length: 300 }, () => {
      const c = rawConnection(server.port);
      // One byte short of the declared length: the body never ends.
      c.socket.write(`POST /api/add-product HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 1}\r\n\r\n`);
      c.socket.write(body);
      return c;
    });
    const allClosed = Promise.all(connections.map((c) => c.closed));
    const closedInTime = await Promise.race([allClosed.then(() => true), sleep(10_000).then(() => false)]);
    clearInterval(sampler);
    for (const c of connections) c.socket.destroy();
    const after = vmRss(pid);
    const measured = `VmRSS ${before >> 20} MB before, ${peak >> 20} MB at the peak, ${after >> 20} MB after`;
    expect(peak - before, measured).toBeLessThan(100 * 1024 * 1024);
    expect(after - before, measured).toBeLessThan(100 * 1024 * 1024);
    // Answered at once, not after the request timeout: the server closed every connection itself.
    expect(closedInTime).toBe(true);
    const answers = connections.map((c) => c.received()).filter((text) => text !== '');
    expect(answers.length).toBeGreaterThan(0);
    for (const text of answers) expectErrorForm(text, 401, 'ERROR_NO_API_KEY');
  });

  // Before the tests below whose requests are cut off mid-body: the first abort of the server's life is logged at once.
  test('clients closing mid-body are counted in one log line, without a stack trace', async () => {
    const from = server.output().length;
    for (let i = 0; i < 3; i++) {
      const c = rawConnection(server.port);
      const request = `POST /api/add-product HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${KEY}\r\nX-Access-Token: ${await token('/api/add-product')}\r\nContent-Length: 1000\r\n\r\n{"products":[`;
      await new Promise((resolve) => c.socket.write(request, resolve));
      // Closed once the server has read the headers and the start of the body.
      await until(() => serverEnd(server.port, c.socket.localPort!)?.unread === 0);
      c.socket.destroy();
      await c.closed;
    }
    await until(() => server.output().slice(from).includes('aborted mid-body'), 3000);
    // The server still serves; once it has answered, it has seen every abort before (they came first).
    expect((await fetch(`${server.url}/api/products`, { headers: { Authorization: `Bearer ${KEY}` } })).status).toBe(200);
    const logged = server.output().slice(from);
    expect(logged.split('\n').filter((line) => line.includes('aborted mid-body'))).toEqual([expect.stringMatching(/1 since start/)]);
    expect(logged).not.toMatch(/^\s+at /m);
  });
  test('HTTP/1.0 without Host is served; HTTP/1.1 without Host is 400 in the error form', async () => {
    const served = parseAnswer(await exchange(server.port, `GET /api/product-brands HTTP/1.0\r\nAuthorization: Bearer ${KEY}\r\n\r\n`));
    expect(served.status).toBe(200);
    expect(JSON.parse(served.body)).toEqual({ meta: { allCount: 0 }, data: [] });
    expectErrorForm(await exchange(server.port, `GET /api/product-brands HTTP/1.1\r\nAuthorization: Bearer ${KEY}\r\n\r\n`), 400, 'ERROR_BAD_REQUEST');
  });

  test('headers over the limit are 431 in the error form', async () => {
    const text = await exchange(server.port, `GET /api/products HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${KEY}\r\nX-Padding: ${'p'.repeat(64 * 1024)}\r\n\r\n`);
    expectErrorForm(text, 431, 'ERROR_HEADERS_TOO_LARGE');
  });

  test('stalled headers and a stalled body are 408 in the error form', async () => {
    const stalledBody = `POST /api/contractor HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${KEY}\r\nContent-Length: 100\r\n\r\n{"id":`;
    // Both stalled at once: the test waits for the longer time limit, not for the two one after the other.
    const [headers, body] = await Promise.all([exchange(server.port, `GET /api/products HTTP/1.1\r\nHost: t\r\n`), exchange(server.port, stalledBody)]);
    expectErrorForm(headers, 408, 'ERROR_TIMEOUT');
    expectErrorForm(body, 408, 'ERROR_TIMEOUT');
  });

  test('a malformed chunk and conflicting Content-Length and Transfer-Encoding are 400 in the error form', async () => {
    const badChunk = `POST /api/contractor HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${KEY}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`;
    expectErrorForm(await exchange(server.port, badChunk), 400, 'ERROR_BAD_REQUEST');
    const both = `POST /api/contractor HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${KEY}\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`;
    expectErrorForm(await exchange(server.port, both), 400, 'ERROR_BAD_REQUEST');
  });

  test('HEAD on a write path is 405 and issues no token', async () => {
    // The server's database, opened beside it as another process would.
    const tokens = async () => {
      const tb = await openSqliteCompany(file);
      try {
        return await tb.tokens.count();
      } finally {
        tb.close();
      }
    };
    const before = await tokens();
    const text = await exchange(server.port, `HEAD /api/add-product HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${KEY}\r\nConnection: close\r\n\r\n`);
    const answer = parseAnswer(text);
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET, POST');
    expect(answer.body).toBe('');
    expect(await tokens()).toBe(before);
  });

});

describe('connection caps', () => {
  let server: ServerProcess;
  const dir = path.join(process.env.TMPDIR ?? '/tmp', `tradebook-caps-${process.pid}`);
  beforeAll(async () => {
    server = await startServer(path.join(dir, 'caps.db'), KEY, { TRADEBOOK_MAX_CONNECTIONS: '4', TRADEBOOK_MAX_CONNECTIONS_PER_CLIENT: '2' });
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const get = (c: ReturnType<typeof rawConnection>) => c.socket.write(`GET /api/product-brands HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${KEY}\r\n\r\n`);
  const answered = async (c: ReturnType<typeof rawConnection>) => {
    await until(() => /\r\n\r\n\{.*\}$/s.test(c.received()));
    return c.received();
  };

  test('a connection over the per-client or the total cap is answered 503 in the error form and closed', async () => {
    const held = [rawConnection(server.port, '127.0.0.1'), rawConnection(server.port, '127.0.0.1')];
    for (const c of held) get(c);
    for (const c of held) expect(parseAnswer(await answered(c)).status).toBe(200);

    const overClient = rawConnection(server.port, '127.0.0.1');
    get(overClient);
    await overClient.closed;
    expectErrorForm(overClient.received(), 503, 'ERROR_TOO_MANY_CONNECTIONS');

    // Another address still has its own places, up to the total.
    const others = [rawConnection(server.port, '127.0.0.2'), rawConnection(server.port, '127.0.0.2')];
    for (const c of others) get(c);
    for (const c of others) expect(parseAnswer(await answered(c)).status).toBe(200);
    const overTotal = rawConnection(server.port, '127.0.0.3');
    await overTotal.closed;
    expectErrorForm(overTotal.received(), 503, 'ERROR_TOO_MANY_CONNECTIONS');

    // A closed connection frees its place.
    const heldPort = held[0].socket.localPort!;
    held[0].socket.destroy();
    await held[0].closed;
    // The server has closed its end (it counts the connection out as it does).
    await until(() => !['01', '08'].includes(serverEnd(server.port, heldPort)?.state ?? 'gone'));
    const again = rawConnection(server.port, '127.0.0.1');
    get(again);
    expect(parseAnswer(await answered(again)).status).toBe(200);
    for (const c of [held[1], ...others, again]) c.socket.destroy();
  });
});

test('a bad setting stops the start with one line and exit 2, before the database is opened', async () => {
  const dir = tempDir();
  const settings = [
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['TRADEBOOK_HOST', 'not a host!'],
    ['TRADEBOOK_ACCESS_LOG', 'maybe'],
    ['TRADEBOOK_MAX_CONNECTIONS', 'many'],
    ['TRADEBOOK_MAX_CONNECTIONS_PER_CLIENT', '0'],
    // More than the total (2,048 by default).
    ['TRADEBOOK_MAX_CONNECTIONS_PER_CLIENT', '4096'],
    ['TRADEBOOK_HEADERS_TIMEOUT_MS', '-5'],
    ['TRADEBOOK_REQUEST_TIMEOUT_MS', '1.5'],
    ['TRADEBOOK_KEY_CACHE_MS', '-1'],
    ['TRADEBOOK_KEY_CACHE_MS', 'soon'],
    // The proxies are named by address now; `on` (believe anyone) is refused with the new form.
    ['TRADEBOOK_TRUST_PROXY', 'on'],
    ['TRADEBOOK_TRUST_PROXY', '10.0.0.0/33'],
    ['TRADEBOOK_TRUST_PROXY', '127.0.0.1,proxy.local'],
  ];
  // The starts are independent of one another: run side by side, they wait for their processes together.
  const runs = await Promise.all(
    settings.map(async ([name, value]) => {
      const db = path.join(dir, `${name}-${value}.db`);
      return { name, db, run: await runToExit('bin/server.mjs', [], { TRADEBOOK_DB: db, PORT: '0', [name]: value }) };
    }),
  );
  for (const { name, db, run } of runs) {
    expect([name, run.status]).toEqual([name, 2]);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringContaining(name)]);
    expect(fs.existsSync(db)).toBe(false);
  }
});

test('a port already taken stops the start with one line and exit 2, no stack trace', async () => {
  const dir = tempDir();
  const first = await startServer(path.join(dir, 'first.db'), KEY);
  try {
    const run = spawnSync(process.execPath, [path.resolve(import.meta.dirname, '../../bin/server.mjs')], {
      env: { ...process.env, TRADEBOOK_DB: path.join(dir, 'second.db'), TRADEBOOK_API_KEY: KEY, PORT: String(first.port) },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([`tradebook: cannot listen on every address port ${first.port}: EADDRINUSE`]);
  } finally {
    await first.stop();
  }
});

test('TRADEBOOK_HOST chooses the address the server listens on', async () => {
  const server = await startServer(path.join(tempDir(), 'host.db'), KEY, { TRADEBOOK_HOST: '127.0.0.2' });
  try {
    const on = (host: string) =>
      new Promise<boolean>((resolve) => {
        const socket = net.connect({ port: server.port, host }, () => (socket.destroy(), resolve(true)));
        socket.on('error', () => resolve(false));
      });
    expect(await on('127.0.0.2')).toBe(true);
    expect(await on('127.0.0.1')).toBe(false);
  } finally {
    await server.stop();
  }
});
