import { validateHeaderValue } from 'node:http';
import fc from 'fast-check';
import { afterEach, expect, test, vi } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import type { UnexpectedError } from '../../src/http/unexpected-error.ts';
import { engineService } from '../engine-service.ts';
import { importRecords, line, money, romashka, sale } from '../documents-fixtures.ts';
import { Browser } from '../workbench-client.ts';

afterEach(() => vi.restoreAllMocks());

/** A text as a query or form value carries it: every UTF-8 byte percent-encoded (lone surrogates as U+FFFD). */
const encoded = (text: string) => [...Buffer.from(text)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');

/** A value of any bytes or characters, percent-encoded: raw bytes (not always UTF-8), any code points, or near-valid values. */
const value = fc.oneof(
  fc.uint8Array({ maxLength: 12 }).map((bytes) => [...bytes].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('')),
  fc.string({ unit: 'binary-ascii', maxLength: 12 }).map(encoded),
  fc.string({ unit: 'binary', maxLength: 12 }).map(encoded),
  fc.constantFrom('', '0', '-1', '1e309', '9'.repeat(30), '2026-02-30', '7', 'sale', 'contractor-7', '/audit/%01', '%', '%zz', '..', '__proto__').map(encoded),
  fc.string({ unit: 'binary', minLength: 300, maxLength: 3000 }).map(encoded),
  // A path of ours followed by anything: what a return path is checked for.
  fc.tuple(fc.constantFrom('/audit/', '/audit?', '/audit#'), fc.string({ unit: 'binary-ascii', maxLength: 12 })).map(([path, rest]) => encoded(path + rest)),
);

/** A cookie's value: any bytes a header can carry (no NUL, CR or LF), or any characters percent-encoded (cookies are decoded). */
const cookieValue = fc.oneof(
  fc.uint8Array({ maxLength: 8 }).map((bytes) => String.fromCharCode(...bytes.filter((byte) => byte !== 0 && byte !== 10 && byte !== 13))),
  fc.string({ unit: 'binary', maxLength: 4 }).map(encoded),
);

/** The workbench's pages and the names of their query values. */
const PAGES: [path: string, names: string[]][] = [
  ['/audit/documents', ['type', 'id', 'number', 'contractor', 'dateFrom', 'dateTo', 'status', 'offset']],
  ['/audit/contractors', ['q']],
  ['/audit/record', ['stream', 'at']],
  ['/audit/log', ['order', 'after', 'before', 'stream', 'type', 'since']],
  ['/audit/statement', ['contractor', 'dateFrom', 'dateTo']],
  ['/audit/statement.csv', ['contractor', 'dateFrom', 'dateTo']],
  ['/audit/statement.xlsx', ['contractor', 'dateFrom', 'dateTo']],
  ['/audit/anchors', []],
  ['/audit/sign-in', ['next', 'ended']],
  ['/audit', []],
];

test('arbitrary bytes in every query value, path value, form field and cookie of the workbench and the API: never a 500, never a stack trace', async () => {
  const { tb, app: plain, key: apiKey } = await engineService();
  const { key: auditKey } = await tb.keys.create({ name: 'auditor', scope: 'audit' });
  const imported = await importRecords(tb, [line('contractor', romashka), line('product', { id: 1, name: 'Стол', sku: 'T1', categoryId: 0 }), sale(3, 1, 500), money('paymentin', 4, 1, 300, [{ type: 'sale', id: 3 }])]);
  expect(imported.failures).toEqual([]);
  const failures: UnexpectedError[] = [];
  const app = createApp(tb, { onUnexpectedError: (failure) => failures.push(failure) });
  const auditor = new Browser(app);
  expect((await auditor.signIn(auditKey)).status).toBe(303);
  const openapi = (await (await plain.request('/api/openapi.json')).json()) as { paths: Record<string, { get?: { parameters?: { name: string; in: string }[] } }> };
  const reads = Object.entries(openapi.paths).flatMap(([path, item]) =>
    item.get === undefined ? [] : [[path, (item.get.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name)] as [string, string[]]],
  );
  expect(reads.length).toBeGreaterThan(10);

  const query = (names: string[]) => fc.array(fc.tuple(fc.constantFrom(...names, 'extra'), value), { maxLength: 6 }).map((pairs) => pairs.map(([name, v]) => `${name}=${v}`).join('&'));
  const cookies = fc.record(
    { tb_audit: fc.oneof(fc.constant(auditor.cookie.slice('tb_audit='.length)), cookieValue), tb_lang: cookieValue, tb_ends: cookieValue, tb_form: cookieValue, other: cookieValue },
    { requiredKeys: ['tb_audit'] },
  ).map((jar) => Object.entries(jar).map(([name, v]) => `${name}=${v}`).join('; '));
  const form = (names: string[]) => fc.array(fc.tuple(fc.constantFrom(...names), value), { maxLength: 5 }).map((pairs) => pairs.map(([name, v]) => `${name}=${v}`).join('&'));

  const request = fc.oneof(
    fc.tuple(fc.constantFrom(...PAGES), cookies).chain(([[path, names], cookie]) => query(names).map((q) => ({ path: `${path}?${q}`, init: { headers: { Cookie: cookie } } }))),
    fc.tuple(fc.constantFrom('/audit/document/', '/audit/contractor/', '/audit/language/', '/audit/document/sale/'), value, cookies).map(([path, v, cookie]) => ({ path: `${path}${v}?back=${v}`, init: { headers: { Cookie: cookie } } })),
    fc.tuple(fc.constantFrom('/audit/sign-in', '/audit/anchors', '/audit/sign-out'), form(['key', 'form', 'next', 'anchors']), cookies, fc.boolean()).map(([path, body, cookie, ownToken]) => ({
      path,
      init: {
        method: 'POST',
        headers: { Cookie: cookie, Origin: 'http://localhost', 'Content-Type': 'application/x-www-form-urlencoded' },
        body: ownToken && path === '/audit/anchors' ? `form=${encodeURIComponent(auditor.formToken)}&${body}` : body,
      },
    })),
    fc.tuple(fc.constantFrom(...reads), fc.constantFrom(apiKey, auditKey), cookies).chain(([[path, names], key, cookie]) =>
      query(names.length === 0 ? ['limit'] : names).map((q) => ({ path: `${path}?${q}`, init: { headers: { Authorization: `Bearer ${key}`, Cookie: cookie } } })),
    ),
  );

  const stderr = vi.spyOn(process.stderr, 'write');
  const consoleError = vi.spyOn(console, 'error');
  await fc.assert(
    fc.asyncProperty(request, async ({ path, init }) => {
      const res = await app.request(path, init);
      await res.arrayBuffer();
      expect([path, res.status < 500]).toEqual([path, true]);
      // Every header is one Node writes to a socket (it throws on one it refuses, and the client gets a 500).
      for (const [name, headerValue] of res.headers) expect(() => validateHeaderValue(name, headerValue), `${path}: ${name}`).not.toThrow();
    }),
    { numRuns: 300 },
  );
  expect(failures).toEqual([]);
  expect(stderr).not.toHaveBeenCalled();
  expect(consoleError).not.toHaveBeenCalled();
});

test('a form token of as many characters as the expected one but more bytes is refused as a wrong token, not a 500', async () => {
  const { tb } = await engineService();
  const failures: UnexpectedError[] = [];
  const app = createApp(tb, { onUnexpectedError: (failure) => failures.push(failure) });
  const res = await app.request('/audit/sign-in', {
    method: 'POST',
    headers: { Cookie: 'tb_form=%C3%A9', Origin: 'http://localhost', 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'form=a&key=x',
  });
  expect([res.status, (await res.text()).includes('ERROR_FORM_TOKEN')]).toEqual([403, true]);
  expect(failures).toEqual([]);
});
