import { describe, expect, onTestFinished, test } from 'vitest';
import type { AccessEntry } from '../../src/http/access-log.ts';
import { createApp } from '../../src/http/app.ts';
import { hashSecret } from '../../src/tokens/api-keys.ts';
import { ApiClient } from '../helpers.ts';
import { appOnSocket, trusting } from '../app-on-socket.ts';
import { engineService } from '../engine-service.ts';
import { Browser } from '../workbench-client.ts';

describe('the trail of what auditors read', () => {
  test('each workbench page and audit API read is an access-log entry with the key id, the session’s id hash, the client and what was read', async () => {
    const { tb, api, key } = await engineService();
    expect((await api.write('/api/add-product', 'products', [{ name: 'Стол', sku: 'T1', categoryId: 0 }])).status).toBe(200);
    const { id: auditId, key: auditKey } = await tb.keys.create({ name: 'auditor', scope: 'audit' });
    const entries: AccessEntry[] = [];
    const app = createApp(tb, { accessLog: (entry) => entries.push(entry), trustedProxies: trusting('127.0.0.1') });
    // The auditor's browser behind a proxy at 127.0.0.1, which says who the client is.
    const onSocket = await appOnSocket(app);
    onTestFinished(() => onSocket.close());
    const browser = new Browser(onSocket.from('127.0.0.1'), { 'X-Forwarded-For': '203.0.113.9', 'X-Forwarded-Host': 'localhost' });
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
