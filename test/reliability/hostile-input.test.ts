import fc from 'fast-check';
import { beforeEach, describe, expect, test } from 'vitest';
import type { ApiClient, Response } from '../helpers.ts';
import { type EngineService, engineService as testService } from '../engine-service.ts';

/**
 * Generated hostile requests at every endpoint the OpenAPI document lists, so endpoints added later are
 * covered without touching this file. Each answer must carry a status and error names the document lists
 * for that operation, and a refused write must leave the event log as it was.
 */

interface Operation {
  responses: Record<string, unknown>;
  parameters?: { name: string; in: string }[];
  requestBody?: { content: { 'application/json': { schema: { properties?: Record<string, { items?: { properties?: Record<string, unknown> } }> } } } };
  'x-error-codes': string[];
}

type Paths = Record<string, Partial<Record<'get' | 'post', Operation>>>;

const NASTY_TEXT = [
  '😀👩‍👩‍👧‍👦🇷🇺',
  'שלום עולם مرحبا',
  'a\u200Bb\u200C\u200D\uFEFFc',
  "'; DROP TABLE events; --",
  '" OR 1=1 --',
  '../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%00%2e%2e%2f',
  'line\nbreak\ttab\r\u0000nul',
  '\u202Eevil\u202C',
  'Ёлка й ё',
  'x'.repeat(600),
];

const hostileText = fc.oneof(fc.constantFrom(...NASTY_TEXT), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }));

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileText,
  fc.constantFrom(null, true, false, 0, -1, 0.001, 1e300, -1e300, 2 ** 53, 2 ** 53 + 2, 'NaN', 'Infinity', '-0', '1e5', '0x10', '', ' ', [], {}),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.array(hostileText, { maxLength: 3 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Percent-encoded hostile text, or raw encodings that do not decode. */
const hostileQueryValue = fc.oneof(
  hostileText.map(encodeURIComponent),
  fc.constantFrom('%', '%ZZ', '%E0%A4%A', '%C0%AF', '-1', '1.5', '1e2', '00001', '9007199254740993', '+5', ' 5', '0x1A', '[]', 'null'),
);

let service: EngineService;
let api: ApiClient;
let paths: Paths;

function eventCount(): Promise<number> {
  return service.tb.audit.lastSeq();
}

function expectDocumented(res: Response, operation: Operation, what: string): void {
  const documented = Object.keys(operation.responses).map(Number);
  expect(documented, `${what}: status ${res.status} ${res.text.slice(0, 300)}`).toContain(res.status);
  if (res.status === 200) return;
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(Array.isArray(res.body?.errors) && res.body.errors.length > 0, `${what}: ${res.text.slice(0, 300)}`).toBe(true);
  for (const error of res.body.errors) {
    expect(operation['x-error-codes'], `${what}: ${res.text.slice(0, 300)}`).toContain(error.code);
    expect(typeof error.message).toBe('string');
  }
}

/** A POST of raw bytes with a fresh token for the path. */
async function postRaw(path: string, body: string | Uint8Array, token?: string): Promise<Response> {
  return api.request('POST', path, { raw: body, headers: { 'X-Access-Token': token ?? (await api.token(path)) } });
}

// A fresh service for each test: the helpers close the database after every test.
beforeEach(async () => {
  service = await testService();
  api = service.api;
  paths = (await api.get('/api/openapi.json')).body.paths;
  // Something for edits and lookups to find.
  await api.write('/api/add-product-brand', 'brand', [{ name: 'Бренд' }]);
  await api.write('/api/add-product-category', 'category', [{ name: 'Группа' }]);
  await api.write('/api/add-product', 'products', [{ name: 'Товар', sku: 'T-1', categoryId: 1, brandId: 1 }]);
});

const writes = () =>
  Object.entries(paths).flatMap(([path, ops]) => {
    const schema = ops.post?.requestBody?.content['application/json'].schema;
    const wrapper = ops.get && schema?.properties ? Object.keys(schema.properties)[0] : undefined;
    if (!ops.post || !wrapper) return [];
    return [{ path, operation: ops.post, wrapper, fields: Object.keys(schema!.properties![wrapper].items?.properties ?? {}) }];
  });

describe('hostile input at every endpoint of the OpenAPI document', () => {
  test('the document lists the catalogue endpoints (and whatever is added later)', () => {
    expect(Object.keys(paths)).toEqual(expect.arrayContaining(['/api/products', '/api/product', '/api/add-product', '/api/add-product-brand']));
    expect(writes().length).toBeGreaterThanOrEqual(7);
  });

  test('generated bodies at every write: documented status and names, nothing applied unless 200', async () => {
    for (const { path, operation, wrapper, fields } of writes()) {
      const record = fc
        .tuple(
          fc.record(Object.fromEntries(fields.map((f) => [f, hostileValue])), { requiredKeys: [] }),
          fc.dictionary(fc.string({ maxLength: 8 }), hostileValue, { maxKeys: 3 }),
        )
        .map(([known, extra]) => ({ ...extra, ...known }));
      const body = fc.oneof(
        fc.array(fc.oneof(record, hostileValue), { maxLength: 12 }).map((records) => ({ [wrapper]: records })),
        fc.record({ [wrapper]: hostileValue }),
        fc.jsonValue({ maxDepth: 4 }),
      );
      await fc.assert(
        fc.asyncProperty(body, async (value) => {
          const before = await eventCount();
          const res = await postRaw(path, JSON.stringify(value));
          expectDocumented(res, operation, `POST ${path} ${JSON.stringify(value).slice(0, 200)}`);
          if (res.status !== 200) {
            expect(await eventCount()).toBe(before);
            return;
          }
          // What the answer echoes (sku, name) is what was sent, byte for byte.
          const sent = (value as Record<string, Record<string, unknown>[]>)[wrapper];
          res.body.data.forEach((item: Record<string, unknown>, i: number) => {
            for (const [key, v] of Object.entries(item)) if (typeof v === 'string') expect(v).toBe(sent[i][key]);
          });
        }),
        { numRuns: 40 },
      );
    }
  });

  test('generated query strings at every read: documented status and names, nothing appended', async () => {
    // Every GET (token steps included) and every POST that is a read (it takes no access token).
    const isWrite = (operation: Operation) => operation.parameters?.some((p) => p.in === 'header') ?? false;
    const reads = Object.entries(paths).flatMap(([path, ops]) =>
      (['get', 'post'] as const).filter((m) => ops[m] && !isWrite(ops[m])).map((m) => ({ path, method: m, operation: ops[m]! })),
    );
    const before = await eventCount();
    for (const { path, method, operation } of reads) {
      const names = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      const query = fc.dictionary(fc.oneof(fc.constantFrom(...names, 'limit', 'offset', 'id'), fc.string({ maxLength: 6 }).map(encodeURIComponent)), hostileQueryValue, { maxKeys: 4 });
      await fc.assert(
        fc.asyncProperty(query, hostileValue, async (params, body) => {
          const url = `${path}?${Object.entries(params).map(([k, v]) => `${k}=${v}`).join('&')}`;
          const res = method === 'get' ? await api.get(url) : await api.post(url, body);
          expectDocumented(res, operation, `${method.toUpperCase()} ${url}`);
        }),
        { numRuns: 60 },
      );
    }
    expect(await eventCount()).toBe(before);
  });

  test('invalid UTF-8, deep nesting, 10,000-element arrays and huge numbers: 400 with the wrapper name, nothing applied', async () => {
    for (const { path, operation, wrapper } of writes()) {
      const wrapperCode = operation['x-error-codes'][0];
      const bodies: (string | Uint8Array)[] = [
        Buffer.concat([Buffer.from(`{"${wrapper}":[{"name":"`), Buffer.from([0xff, 0xfe, 0xc0, 0xaf]), Buffer.from('","sku":"U1","categoryId":0}]}')]),
        `{"${wrapper}":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
        `{"${wrapper}":[${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}]}`,
        JSON.stringify({ [wrapper]: Array.from({ length: 10_000 }, () => ({ name: 'x', sku: 'x', categoryId: 0 })) }),
        `{"${wrapper}":[{"id":1e999,"name":-1e999,"sku":1e999,"categoryId":123456789012345678901234567890}]}`,
        '',
        'null',
        '{"',
      ];
      for (const body of bodies) {
        const before = await eventCount();
        const res = await postRaw(path, body);
        expectDocumented(res, operation, `POST ${path} ${String(body).slice(0, 80)}`);
        expect(res.status).toBe(400);
        if (typeof body !== 'string' || body.length > 100_000) expect(res.body.errors[0].code).toBe(wrapperCode);
        expect(await eventCount()).toBe(before);
      }
    }
  });

  test('a refused token is 401 ERROR_ACCESS_TOKEN and applies nothing, whatever the body', async () => {
    for (const { path, operation, wrapper } of writes()) {
      for (const token of ['', 'x', 'a'.repeat(5000), "' OR 1=1 --"]) {
        const before = await eventCount();
        const res = await postRaw(path, JSON.stringify({ [wrapper]: [{ name: 'n', sku: 's', categoryId: 0 }] }), token);
        expectDocumented(res, operation, `POST ${path} token ${token.slice(0, 10)}`);
        expect(res.status).toBe(401);
        expect(res.body.errors[0].code).toBe('ERROR_ACCESS_TOKEN');
        expect(await eventCount()).toBe(before);
      }
    }
  });
});

describe('text is stored and returned byte for byte', () => {
  test('but U+0000, which PostgreSQL cannot store: the field\'s error on either engine, nothing applied', async () => {
    const before = await eventCount();
    const nul = 'line\u0000nul';
    const product = await api.write('/api/add-product', 'products', [{ name: 'Чай', sku: 'NUL-1', categoryId: 0 }, { name: nul, sku: nul, categoryId: 0 }]);
    expect(product.status).toBe(400);
    expect(product.body.errors).toEqual([
      expect.objectContaining({ code: 'ERROR_NAME', index: 1, message: expect.stringContaining('U+0000') }),
      expect.objectContaining({ code: 'ERROR_SKU', index: 1 }),
    ]);
    const contractor = await api.write('/api/add-contractor', 'contractors', [{ type: 'ЮЛ', name: 'ООО\u0000', contactPerson: 'Иванов Иван', phone1: '+7 (916) 123-45-67', inn: '7701234567', kpp: '770101001' }]);
    expect(contractor.status).toBe(400);
    expect(contractor.body.errors).toEqual([expect.objectContaining({ code: 'ERROR_NAME' })]);
    expect(await eventCount()).toBe(before);
  });

  test('product name, sku and unit, brand and group names', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .oneof(fc.constantFrom(...NASTY_TEXT.filter((t) => t.length <= 255)), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }))
          .filter((s) => s.trim() !== '' && !s.includes('\u0000')),
        fc.nat(),
        async (name, n) => {
          const sku = `${name.slice(0, 200)}#${n}-${Math.random()}`;
          const added = await api.write('/api/add-product', 'products', [{ name, sku, unit: name.slice(0, 255), categoryId: 0 }]);
          expect(added.status, added.text).toBe(200);
          const bySku = await api.get(`/api/product?sku=${encodeURIComponent(sku)}`);
          expect(bySku.status, bySku.text).toBe(200);
          expect(bySku.body.data).toMatchObject({ id: added.body.data[0].id, name, sku, unit: name.slice(0, 255) });

          const brand = await api.write('/api/add-product-brand', 'brand', [{ name: sku }]);
          expect(brand.status, brand.text).toBe(200);
          const brands = (await api.get('/api/product-brands')).body.data;
          expect(brands.find((b: { id: number }) => b.id === brand.body.data[0].id).name).toBe(sku);

          const group = await api.write('/api/add-product-category', 'category', [{ name: sku }]);
          expect(group.status, group.text).toBe(200);
          const groups = (await api.get('/api/product-categories')).body.data;
          expect(groups.find((g: { id: number }) => g.id === group.body.data[0].id).name).toBe(sku);
        },
      ),
      { numRuns: 40 },
    );
  });
});
