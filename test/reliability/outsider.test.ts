import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tempDir, until } from '../helpers.ts';
import { type ServerProcess, rawConnection, runCli, startServer } from '../server-process.ts';

/** What an outsider can send the real server: the answers, the access log and standard error. */

const KEY = 'tb_outsider_test_key_0123456789ab';

/** The server's JSON log lines so far. */
const logLines = (server: ServerProcess): Record<string, unknown>[] =>
  server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));

/** What the server wrote that is no JSON log line: standard error's text, a stack trace among it. */
const strayOutput = (server: ServerProcess) =>
  server
    .output()
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('{'))
    .join('\n');

describe('return paths on the real server', () => {
  let server: ServerProcess;
  let auditKey: string;
  beforeAll(async () => {
    const file = path.join(tempDir(), 'outsider.db');
    expect((await runCli(file, ['keys', 'create', '--name', 'setup'])).status).toBe(0);
    auditKey = JSON.parse((await runCli(file, ['keys', 'create', '--name', 'auditor', '--scope', 'audit', '--json'])).stdout).key;
    server = await startServer(file, KEY);
  });
  afterAll(() => server?.stop());

  test('a return path with a control character, a backslash or too long falls back to the default; the status logged is the one sent; nothing reaches standard error', async () => {
    const long = `/audit/documents?number=${'x'.repeat(15_000)}`;
    const cases: [back: string, location: string][] = [
      ['/audit/%01', '/audit'],
      ['/audit/%7F', '/audit'],
      ['/audit/%C2%85', '/audit'],
      ['/audit/%D0%B0', '/audit'],
      ['/audit/a%5Cb', '/audit'],
      ['/audit/%20x', '/audit'],
      [encodeURIComponent(long), '/audit'],
      ['/audit/log%3Fstream%3Dproduct-1', '/audit/log?stream=product-1'],
    ];
    for (const [back, location] of cases) {
      const res = await fetch(`${server.url}/audit/language/en?back=${back}`, { redirect: 'manual', headers: { 'X-Request-Id': `back-${cases.findIndex((c) => c[0] === back)}` } });
      expect([back, res.status, res.headers.get('location')]).toEqual([back, 303, location]);
    }
    await until(() => logLines(server).filter((line) => String(line.reqId).startsWith('back-')).length === cases.length);
    expect(logLines(server).filter((line) => String(line.reqId).startsWith('back-')).map((line) => line.status)).toEqual(cases.map(() => 303));
    expect(strayOutput(server)).toBe('');
  });

  test('signing in with a `next` the server cannot send back goes to the documents, with the session cookie on that 303 only', async () => {
    for (const next of ['/audit/\u0000', '/audit/\u0001x', '/audit/\u00e9']) {
      const form = await fetch(`${server.url}/audit/sign-in`);
      const token = /name="form" value="([^"]+)"/.exec(await form.text())![1];
      const signed = await fetch(`${server.url}/audit/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: server.url, Cookie: form.headers.getSetCookie()[0].split(';')[0] },
        body: new URLSearchParams({ key: auditKey, form: token, next }),
      });
      expect([JSON.stringify(next), signed.status, signed.headers.get('location')]).toEqual([JSON.stringify(next), 303, '/audit/documents']);
      expect(signed.headers.getSetCookie().some((set) => set.startsWith('tb_audit=') && !set.startsWith('tb_audit=;'))).toBe(true);
    }
    expect(strayOutput(server)).toBe('');
  });

  test('API answers written straight to the socket say Cache-Control: no-store too; the stylesheet stays cacheable', async () => {
    for (const target of ['/api/products', '/api/product-brands?limit=1']) {
      const res = await fetch(`${server.url}${target}`, { headers: { Authorization: `Bearer ${KEY}`, 'X-Request-Id': `page-${target.length}` } });
      expect([target, res.status, res.headers.get('cache-control')]).toEqual([target, 200, 'no-store']);
    }
    // Each written straight to the socket, each one access-log line with its status.
    await until(() => logLines(server).filter((line) => String(line.reqId).startsWith('page-')).length === 2);
    expect(logLines(server).filter((line) => String(line.reqId).startsWith('page-')).map((line) => line.status)).toEqual([200, 200]);
    expect((await fetch(`${server.url}/api/products`)).headers.get('cache-control')).toBe('no-store');
    // A request line in absolute form is the same path.
    const absolute = rawConnection(server.port);
    absolute.socket.write(`GET ${server.url}/api/products HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nConnection: close\r\n\r\n`);
    await absolute.closed;
    expect(absolute.received()).toMatch(/^HTTP\/1\.1 200 [^]*\r\ncache-control: no-store\r\n/i);
    const css = await fetch(`${server.url}/audit/workbench.css`);
    expect(css.headers.get('cache-control')).toBe('public, max-age=3600');
  });
});

describe('connections held open by slow senders', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    // Four addresses together can hold every place; the headers timeout is far beyond the test.
    server = await startServer(path.join(tempDir(), 'slow.db'), KEY, {
      TRADEBOOK_MAX_CONNECTIONS: '64',
      TRADEBOOK_MAX_CONNECTIONS_PER_CLIENT: '16',
      TRADEBOOK_HEADERS_TIMEOUT_MS: '60000',
      TRADEBOOK_REQUEST_TIMEOUT_MS: '60000',
    });
  });
  afterAll(() => server?.stop());

  test('four addresses holding every place with headers sent a line a second do not keep a fifth client out', async () => {
    const slow = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'].flatMap((address) =>
      Array.from({ length: 16 }, () => {
        const c = rawConnection(server.port, address);
        c.socket.write('GET /healthz HTTP/1.1\r\nHost: t\r\n');
        return c;
      }),
    );
    const drip = setInterval(() => slow.forEach((c) => c.socket.writable && c.socket.write('X-Slow: 1\r\n')), 1000);
    try {
      await Promise.all(slow.map((c) => new Promise((resolve) => (c.socket.connecting ? c.socket.once('connect', resolve) : resolve(undefined)))));
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Each address is at its own cap.
      const seventeenth = rawConnection(server.port, '127.0.0.2');
      await seventeenth.closed;
      expect(seventeenth.received()).toMatch(/^HTTP\/1\.1 503 [^]*ERROR_TOO_MANY_CONNECTIONS[^]*16 from one address/);
      // Every place is taken: the fifth client's connection takes the place of the longest-waiting slow one.
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${server.url}/healthz`);
        expect([i, res.status]).toEqual([i, 200]);
      }
      // The oldest slow one made room for it.
      await until(() => slow[0].socket.destroyed);
    } finally {
      clearInterval(drip);
      for (const c of slow) c.socket.destroy();
    }
  });
});
