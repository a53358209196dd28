import http from 'node:http';
import { afterEach, expect, test, vi } from 'vitest';
import { type AccessEntry, accessLogged } from '../../src/http/access-log.ts';
import { createApp } from '../../src/http/app.ts';
import { type ServerSettings, listen } from '../../src/http/node-server.ts';
import { TrustedProxies } from '../../src/http/trusted-proxies.ts';
import type { UnexpectedError } from '../../src/http/unexpected-error.ts';
import { engineService } from '../engine-service.ts';
import { Browser } from '../workbench-client.ts';

afterEach(() => vi.restoreAllMocks());

test('an unexpected error is one bounded line with the request id, the status logged is the status sent, nothing goes to standard error', async () => {
  const { tb } = await engineService();
  const { key: auditKey } = await tb.keys.create({ name: 'auditor', scope: 'audit' });
  const entries: AccessEntry[] = [];
  const failures: UnexpectedError[] = [];
  const app = createApp(tb, { accessLog: (entry) => entries.push(entry), onUnexpectedError: (failure) => failures.push(failure) });
  const auditor = new Browser(app, { 'X-Request-Id': 'failing-page' });
  expect((await auditor.signIn(auditKey)).status).toBe(303);
  const stderr = vi.spyOn(process.stderr, 'write');
  const consoleError = vi.spyOn(console, 'error');
  const huge = `input ${'x'.repeat(20_000)}`;
  vi.spyOn(tb.audit, 'lastSeq').mockRejectedValueOnce(new TypeError(huge));
  const failed = await auditor.get('/audit/log');
  expect(failed.status).toBe(500);
  expect(failures).toEqual([{ reqId: 'failing-page', method: 'GET', path: '/audit/log', error: expect.stringMatching(/^TypeError: input x+… \(20017 characters\)$/), at: expect.any(String) }]);
  expect(JSON.stringify(failures[0]).length).toBeLessThan(1000);
  expect(entries.at(-1)).toMatchObject({ reqId: 'failing-page', status: 500 });
  expect(stderr).not.toHaveBeenCalled();
  expect(consoleError).not.toHaveBeenCalled();
});

test('on a real socket, an answer Node refuses to write is logged with the 500 the client got, not the status the app meant', async () => {
  const entries: AccessEntry[] = [];
  // A header value Node refuses (a control character), as a return path once let through.
  const fetch = accessLogged(() => new Response(null, { status: 303, headers: { Location: '/audit/\u0001' } }), (entry) => entries.push(entry), () => '/x', TrustedProxies.NONE);
  vi.spyOn(console, 'error').mockImplementation(() => {});
  const settings = { port: 0, host: '127.0.0.1', headersTimeoutMs: 5000, requestTimeoutMs: 5000, maxConnections: 10, maxConnectionsPerClient: 10 } as ServerSettings;
  const server = await new Promise<http.Server>((resolve, reject) => {
    const listening: http.Server = listen(fetch, settings, () => resolve(listening), reject);
  });
  try {
    const { port } = server.address() as { port: number };
    const res = await globalThis.fetch(`http://127.0.0.1:${port}/x`, { redirect: 'manual' });
    expect(res.status).toBe(500);
    await res.text();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(entries.map((entry) => entry.status)).toEqual([500]);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
