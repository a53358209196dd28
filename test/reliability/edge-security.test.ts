import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BODY_LIMITS } from '../../src/http/body-limit.ts';
import { hashSecret } from '../../src/tokens/api-keys.ts';
import { tempDir, until } from '../helpers.ts';
import { type ServerProcess, rawConnection, runCli, startServer } from '../server-process.ts';
import { signInOver } from '../workbench-client.ts';

const KEY = 'tb_body_limits_test_key_0123456789';
const FORTY_MB = 40 * 1024 * 1024;
const vmRss = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

/**
 * Sends a chunked body of up to 40 MB to `route`, as fast as the connection takes it, until the server answers
 * and closes the connection. Resolves with the answer's head and how much was sent.
 */
async function floodChunked(port: number, route: string, headers: string): Promise<{ head: string; sent: number }> {
  const c = rawConnection(port);
  c.socket.write(`POST ${route} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers}Transfer-Encoding: chunked\r\n\r\n`);
  const chunk = `${(64 * 1024).toString(16)}\r\n${'x'.repeat(64 * 1024)}\r\n`;
  let sent = 0;
  let open = true;
  void c.closed.then(() => (open = false));
  while (open && sent < FORTY_MB) {
    if (c.socket.writableLength < 256 * 1024) {
      c.socket.write(chunk);
      sent += 64 * 1024;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  await c.closed;
  const text = c.received();
  return { head: text.slice(0, text.indexOf('\r\n\r\n')).toLowerCase(), sent };
}

describe('the edges on the real server', () => {
  let server: ServerProcess;
  let auditKey: string;
  beforeAll(async () => {
    const file = path.join(tempDir(), 'limits.db');
    expect((await runCli(file, ['keys', 'create', '--name', 'setup'])).status).toBe(0);
    auditKey = JSON.parse((await runCli(file, ['keys', 'create', '--name', 'auditor', '--scope', 'audit', '--json'])).stdout).key;
    server = await startServer(file, KEY);
  });
  afterAll(() => server?.stop());

  test('a chunked 40 MB body to every route that takes one is refused within its limit, the connection closed and the memory flat', async () => {
    const session = await signInOver(server.url, auditKey);
    const routes: [route: string, headers: string, expected: number][] = [
      // No key or session needed: refused on the bytes received.
      ['/audit/sign-in', '', 413],
      // A key or session needed: refused on the headers, the body never read.
      ['/audit/sign-out', '', 303],
      ['/audit/anchors', '', 303],
      ['/api/contractor', '', 401],
      ['/api/add-product', 'X-Access-Token: t\r\n', 401],
      // With them, refused on the bytes received.
      ['/audit/sign-out', `Cookie: ${session.cookie}\r\n`, 413],
      ['/audit/anchors', `Cookie: ${session.cookie}\r\n`, 413],
      ['/api/contractor', `Authorization: Bearer ${KEY}\r\n`, 413],
      ['/api/add-product', `Authorization: Bearer ${KEY}\r\nX-Access-Token: t\r\n`, 413],
    ];
    const floodAll = async () => {
      for (const [route, headers, expected] of routes) {
        const { head, sent } = await floodChunked(server.port, route, headers);
        expect(head, route).toMatch(new RegExp(`^http/1\\.1 ${expected} `));
        expect(head, route).toContain('connection: close');
        expect(sent, route).toBeLessThan(FORTY_MB);
      }
    };
    // The first two rounds let the heap grow to its working size (about 30 MB for these nine, however large the
    // bodies: the server's RSS by round was 98, 116, 128, 131, 133, 133, 133 MB); reading a 40 MB body whole grew it
    // by more than 250 MB.
    await floodAll();
    await floodAll();
    const before = vmRss(server.child.pid!);
    await floodAll();
    await floodAll();
    const grown = vmRss(server.child.pid!) - before;
    console.log(`two rounds of nine 40 MB chunked bodies: the server's RSS grew ${(grown / 1024 / 1024).toFixed(1)} MB`);
    expect(grown).toBeLessThan(20 * 1024 * 1024);
  });

  test('a declared Content-Length over a workbench form’s limit is 413 before the body is sent', async () => {
    const c = rawConnection(server.port);
    c.socket.write(`POST /audit/sign-in HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${BODY_LIMITS.form + 1}\r\n\r\n`);
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(c.received()).toContain('"code":"ERROR_BODY_TOO_LARGE"');
  });

  test('a page read is one JSON line naming the key, session, address and record; a failed sign-in is one line with the address', async () => {
    const { cookie } = await signInOver(server.url, auditKey);
    expect((await fetch(`${server.url}/audit/log?stream=product-1`, { headers: { Cookie: cookie } })).status).toBe(200);
    const form = await fetch(`${server.url}/audit/sign-in`);
    const token = /name="form" value="([^"]+)"/.exec(await form.text())![1];
    const wrong = await fetch(`${server.url}/audit/sign-in`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: server.url, Cookie: form.headers.getSetCookie()[0].split(';')[0] },
      body: new URLSearchParams({ key: 'tb_not_a_key', form: token }),
    });
    expect(wrong.status).toBe(401);
    const lines = () => server.output().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
    await until(() => lines().some((line) => line.msg === 'workbench sign-in failed'));
    const read = lines().filter((line) => line.read === '/audit/log?stream=product-1');
    expect(read).toEqual([expect.objectContaining({ msg: 'request', keyId: 2, client: '127.0.0.1', session: hashSecret(cookie.slice('tb_audit='.length)), status: 200 })]);
    expect(lines().filter((line) => line.msg === 'workbench sign-in failed')).toEqual([expect.objectContaining({ client: '127.0.0.1', reason: 'unknown, revoked or expired key' })]);
  });

  test('a request line with dot segments reaches no file outside the served assets', async () => {
    for (const target of ['/docs/../package.json', '/docs/../../../../etc/passwd', '/audit/../package.json', '/docs/..%2f..%2fpackage.json', '/docs/%2e%2e/%2e%2e/package.json']) {
      const c = rawConnection(server.port);
      c.socket.write(`GET ${target} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`);
      await c.closed;
      expect([target, c.received().split(' ')[1]]).toEqual([target, '404']);
      expect(c.received()).not.toMatch(/"name": "tradebook"|root:x:0/);
    }
  });
});
