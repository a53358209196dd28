import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { AccessEntry } from '../../src/http/access-log.ts';
import { createApp } from '../../src/http/app.ts';
import { hashSecret } from '../../src/tokens/api-keys.ts';
import { ApiClient, tempDir, until } from '../helpers.ts';
import { engineService } from '../engine-service.ts';
import { runCli, startServer } from '../server-process.ts';
import { Browser, signInOver } from '../workbench-client.ts';

describe('the trail of what auditors read', () => {
  test('each workbench page and audit API read is an access-log entry with the key id, the session’s id hash, the client and what was read', async () => {
    const { tb, api, key } = await engineService();
    expect((await api.write('/api/add-product', 'products', [{ name: 'Стол', sku: 'T1', categoryId: 0 }])).status).toBe(200);
    const { id: auditId, key: auditKey } = await tb.keys.create({ name: 'auditor', scope: 'audit' });
    const entries: AccessEntry[] = [];
    const app = createApp(tb, { accessLog: (entry) => entries.push(entry), trustProxy: true });
    const browser = new Browser(app, { 'X-Forwarded-For': '203.0.113.9' });
    await browser.signIn(auditKey);
    const sessionId = browser.cookie.slice('tb_audit='.length);
    expect((await browser.get('/audit/record?stream=product-1')).status).toBe(200);
    expect((await new ApiClient(app, auditKey).get('/api/history?stream=product-1')).status).toBe(200);
    expect((await new ApiClient(app, key).get('/api/products')).status).toBe(200);

    const trail = entries.filter((entry) => entry.read !== undefined);
    expect(trail.map(({ method, status, keyId, session, client, read }) => ({ method, status, keyId, session, client, read }))).toEqual([
      { method: 'GET', status: 200, keyId: auditId, session: hashSecret(sessionId), client: '203.0.113.9', read: '/audit/record?stream=product-1' },
      { method: 'GET', status: 200, keyId: auditId, session: undefined, client: 'unknown', read: '/api/history?stream=product-1' },
    ]);
    // The API key's read is logged as any request is, without a trail entry; the sign-in itself has no session yet.
    expect(entries.find((e) => e.path === '/api/products')).toMatchObject({ keyId: 1, read: undefined });
    expect(entries.find((e) => e.method === 'POST' && e.path === '/audit/sign-in')).toMatchObject({ status: 303, client: '203.0.113.9', session: undefined });
    const logged = JSON.stringify(entries);
    expect(logged).not.toContain(sessionId);
    expect(logged).not.toContain(auditKey);
  });
});

test('on the real server: a page read is one JSON line naming the key, session, address and record; a failed sign-in is one line with the address', async () => {
  const file = path.join(tempDir(), 'trail.db');
  expect((await runCli(file, ['keys', 'create', '--name', 'setup'])).status).toBe(0);
  const auditKey = JSON.parse((await runCli(file, ['keys', 'create', '--name', 'auditor', '--scope', 'audit', '--json'])).stdout).key as string;
  const server = await startServer(file, 'tb_access_trail_test_key_0123456789');
  try {
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
  } finally {
    await server.stop();
  }
});
