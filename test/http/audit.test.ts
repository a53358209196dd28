import { describe, expect, test } from 'vitest';
import { ApiClient, manualClock } from '../helpers.ts';
import { engineService as testService } from '../engine-service.ts';
import { importRecords, line, money, romashka, sale } from '../documents-fixtures.ts';
import { workbenchCookie } from '../workbench-client.ts';
import { setCompanyDetails } from '../../src/records/company/set-details.ts';
import { ok } from '../../src/lib/result.ts';

async function auditService() {
  const service = await testService({ clock: manualClock(Date.parse('2026-11-22T09:00:00Z')) });
  const { key } = await service.tb.keys.create({ name: 'auditor', scope: 'audit' });
  const auditor = new ApiClient(service.app, key);
  const products = Array.from({ length: 5 }, (_, i) => ({ name: `Товар ${i + 1}`, sku: `S${i + 1}`, categoryId: 0 }));
  expect((await service.api.write('/api/add-product', 'products', products)).status).toBe(200);
  expect((await service.api.write('/api/edit-product', 'products', [{ id: 2, name: 'Товар два', sku: 'S2', categoryId: 0 }])).status).toBe(200);
  return { ...service, auditor };
}

describe('GET /api/events', () => {
  test('pages through the log as stored, after a seq', async () => {
    const { auditor } = await auditService();
    const first = await auditor.get('/api/events?limit=4');
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(first.body.meta).toEqual({ after: 0, limit: 4, count: 4, next: 4 });
    expect(first.body.data.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(first.body.data[0]).toMatchObject({ stream: 'product-1', streamVersion: 1, type: 'ProductAdded', schemaVersion: 1, meta: { keyId: 1 } });
    const second = await auditor.get(`/api/events/?after=${first.body.meta.next}&limit=4`);
    expect(second.body.meta).toEqual({ after: 4, limit: 4, count: 2, next: 6 });
    expect(second.body.data.map((e: { type: string }) => e.type)).toEqual(['ProductAdded', 'ProductEdited']);
    const past = await auditor.get('/api/events?after=100');
    expect(past.body).toEqual({ meta: { after: 100, limit: 1000, count: 0, next: 100 }, data: [] });
  });

  test('limit 1..1000 and after ≥ 0, else ERROR_LIMIT / ERROR_AFTER', async () => {
    const { auditor } = await auditService();
    expect((await auditor.get('/api/events?limit=1000')).status).toBe(200);
    for (const bad of ['0', '1001', '-1', '1.5', '1e2', 'x', '']) {
      const res = await auditor.get(`/api/events?limit=${bad}`);
      expect(res.status, `limit=${bad}`).toBe(400);
      expect(res.body.errors.map((e: { code: string }) => e.code)).toEqual(['ERROR_LIMIT']);
    }
    for (const bad of ['-1', '1.5', 'abc', '99999999999999999']) {
      const res = await auditor.get(`/api/events?after=${bad}`);
      expect(res.status, `after=${bad}`).toBe(400);
      expect(res.body.errors.map((e: { code: string }) => e.code)).toEqual(['ERROR_AFTER']);
    }
    const both = await auditor.get('/api/events?after=x&limit=0');
    expect(both.body.errors.map((e: { code: string }) => e.code).sort()).toEqual(['ERROR_AFTER', 'ERROR_LIMIT']);
  });
});

describe('GET /api/history', () => {
  test("a record's events with Moscow time, the key's name and what changed", async () => {
    const { auditor } = await auditService();
    const res = await auditor.get('/api/history?stream=product-2');
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ stream: 'product-2', after: 0, limit: 1000, count: 2, next: 2 });
    expect(res.body.data[1]).toEqual({
      seq: 6,
      streamVersion: 2,
      type: 'ProductEdited',
      time: '2026-11-22 12:00:00',
      recordedAt: '2026-11-22T09:00:00.000Z',
      who: 'key 1 "test"',
      changes: { name: 'Товар два' },
      before: { name: 'Товар 2' },
    });
  });

  test('no stream: 400 ERROR_STREAM; an unknown one: 404 ERROR_STREAM', async () => {
    const { auditor } = await auditService();
    for (const url of ['/api/history', '/api/history?stream=']) {
      const res = await auditor.get(url);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].code).toBe('ERROR_STREAM');
    }
    const missing = await auditor.get('/api/history?stream=product-99');
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].code).toBe('ERROR_STREAM');
  });
});

describe('the audit scope', () => {
  test('ordinary keys get 401 ERROR_USER_ACCESS on the audit endpoints, with or without a trailing slash', async () => {
    const { api } = await auditService();
    for (const url of ['/api/events', '/api/events/', '/api/events?after=0&limit=10', '/api/history?stream=product-1', '/api/history/?stream=product-1']) {
      const res = await api.get(url);
      expect(res.status, url).toBe(401);
      expect(res.body.errors[0].code).toBe('ERROR_USER_ACCESS');
    }
  });

  test('no key: ERROR_NO_API_KEY; an audit key also uses the trade API', async () => {
    const { app, auditor } = await auditService();
    const anonymous = await new ApiClient(app, '').request('GET', '/api/events', { headers: { Authorization: '' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.errors[0].code).toBe('ERROR_NO_API_KEY');
    expect((await auditor.get('/api/products')).body.meta.allCount).toBe(5);
  });

  test('the OpenAPI document describes both endpoints as audit-only, with their parameters', async () => {
    const { api } = await auditService();
    const doc = (await api.get('/api/openapi.json')).body;
    expect(doc.paths['/api/events'].get.description).toContain('audit scope');
    expect(doc.paths['/api/events'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['after', 'limit']);
    expect(doc.paths['/api/history'].get.parameters).toEqual([
      expect.objectContaining({ name: 'stream', required: true }),
      expect.objectContaining({ name: 'after', required: false }),
      expect.objectContaining({ name: 'limit', required: false }),
    ]);
  });

  test('other methods on the audit paths are 405', async () => {
    const { auditor } = await auditService();
    const res = await auditor.post('/api/events', {});
    expect(res.status).toBe(405);
  });
});

describe('what an audit key may do', () => {
  test('it reads the lists, lookups and audit endpoints; every write path refuses it (token GET and POST) with 401 ERROR_USER_ACCESS, and nothing is appended', async () => {
    const { app, api, auditor, tb } = await auditService();
    const doc = await (await app.request('/api/openapi.json')).json();
    const writePaths = Object.keys(doc.paths).filter((path) => doc.paths[path].get && doc.paths[path].post);
    expect(writePaths.length).toBeGreaterThanOrEqual(9);
    const before = await tb.audit.lastSeq();
    for (const path of writePaths) {
      const token = await auditor.get(path);
      expect([path, token.status, token.body.errors[0].code]).toEqual([path, 401, 'ERROR_USER_ACCESS']);
      // Not even with a token an api key was given.
      const post = await auditor.post(path, { brand: [{ name: 'Аудитор' }] }, await api.token(path));
      expect([path, post.status, post.body.errors[0].code]).toEqual([path, 401, 'ERROR_USER_ACCESS']);
    }
    expect(await tb.audit.lastSeq()).toBe(before);
    for (const path of ['/api/products?limit=5', '/api/product?id=2', '/api/product-brands', '/api/contractors', '/api/sales', '/api/events', '/api/history?stream=product-2']) {
      expect([path, (await auditor.get(path)).status]).toEqual([path, 200]);
    }
    expect((await auditor.post('/api/contractor', { phone: '+7 900 000-00-00' })).status).not.toBe(401);
  });
});

describe('GET /api/audit/document', () => {
  test('one document of any type by type and id, exactly as its list shows it; an api key, a bad query and a missing document are refused by name', async () => {
    const { tb, app, api, auditor } = await auditService();
    const imported = await importRecords(tb, [
      line('contractor', romashka),
      line('product', { id: 1, name: 'Стол', sku: 'T1', categoryId: 0 }),
      sale(187, 1, 1000),
      money('paymentin', 5, 1, 400, [{ type: 'sale', id: 187 }]),
      line('purchase', { id: 3, date: '2026-11-04', status: 0, contractor: { id: 7 }, products: [{ pr_id: 1, pr_name: 'Стол', pr_count: 2, pr_price: 500 }] }),
    ]);
    expect(imported.failures).toEqual([]);
    const one = await auditor.get('/api/audit/document?type=sale&id=187');
    expect(one.status).toBe(200);
    const listed = (await auditor.get('/api/sales')).body.data.find((d: { id: number }) => d.id === 187);
    expect(one.body).toEqual({ data: listed });
    expect(one.body.data.paid).toBe(400);
    // A type no list of the API serves is read all the same.
    expect((await auditor.get('/api/audit/document?type=purchase&id=3')).body.data).toMatchObject({ id: 3, sum: 1000 });
    const refused = [
      [api, '/api/audit/document?type=sale&id=187', 401, 'ERROR_USER_ACCESS'],
      [auditor, '/api/audit/document?type=invoice&id=1', 400, 'ERROR_TYPE'],
      [auditor, '/api/audit/document?type=sale&id=x', 400, 'ERROR_ID'],
      [auditor, '/api/audit/document?type=sale&id=188', 404, 'ERROR_ID'],
    ] as const;
    for (const [client, url, status, code] of refused) {
      const res = await client.get(url);
      expect([url, res.status, res.body.errors[0].code]).toEqual([url, status, code]);
    }
    const doc = await (await app.request('/api/openapi.json')).json();
    expect(doc.paths['/api/audit/document'].get['x-error-codes']).toEqual(expect.arrayContaining(['ERROR_TYPE', 'ERROR_ID', 'ERROR_USER_ACCESS']));
  });
});

describe('statement CSV', () => {
  test('document numbers a spreadsheet would run are written as text, on the API and the workbench alike; amounts stay numbers', async () => {
    const { tb, auditor, app } = await auditService();
    const numbers = ['=1+1', '@SUM(A1:A9)', "+1+cmd|' /C calc'!A0", '-2+3', '\t=1', '=HYPERLINK("http://x.example","open")'];
    // The contractor's name is written into the акт сверки's lines too.
    const imported = await importRecords(tb, [
      line('contractor', { ...romashka, name: '=HYPERLINK("http://x.example","open")' }),
      line('product', { id: 1, name: 'Стол', sku: 'T1', categoryId: 0 }),
      ...numbers.map((number, i) => sale(100 + i, 1, 100, { number })),
    ]);
    expect(imported.failures).toEqual([]);
    const query = 'contractor=7&dateFrom=2026-01-01&dateTo=2026-12-31';
    const api = await auditor.get(`/api/audit/statement?${query}&format=csv`);
    expect(api.status).toBe(200);
    const lines = api.text.split('\r\n');
    // Sales of one day come in the order of their numbers (byte order).
    for (const [i, number] of [...numbers].sort().entries()) {
      expect(lines[2 + i]).toBe(`2026-11-02,sale,${100 + numbers.indexOf(number)},"'${number.replaceAll('"', '""')}",100.00,,${(-100 * (i + 1)).toFixed(2)}`);
    }
    // The workbench's file is the акт сверки for Excel (`;`, decimal commas) through the same writer: no cell
    // starts a formula (each number sits inside its document's cell), amounts stay numbers.
    const cookie = await workbenchCookie(app, auditor.key);
    const page = await (await app.request(`/audit/statement.csv?${query}`, { headers: { Cookie: cookie } })).text();
    const cells = page.replace(/^\uFEFF/, '').split('\r\n').flatMap((row) => row.split(';'));
    expect(cells.filter((cell) => /^[=+\-@\t\r]/.test(cell) && !/^-?\d+,\d\d$/.test(cell))).toEqual([]);
    for (const number of numbers) expect(page).toContain(number.replaceAll('"', '""'));
    expect(cells).toContain('600,00');
  });
});

describe('the statement on every engine', () => {
  test("the company's details in force on its last day, a day's documents of goods before its payments, the opening carried, csv-ru in the act's signs", async () => {
    const { tb, auditor } = await auditService();
    for (const [from, name] of [['2026-01-01', 'ООО «Север»'], ['2026-11-05', 'ООО «Север-2»']]) {
      const set = setCompanyDetails({ from, name, inn: '7701987654', kpp: '770101001', address: null, director: null, accountant: null });
      if (!set.ok) throw new Error(JSON.stringify(set.errors));
      expect((await tb.write(async () => ok(await tb.log.append([set.value.event], { source: 'test' })))).ok).toBe(true);
    }
    const imported = await importRecords(tb, [
      line('contractor', romashka),
      line('product', { id: 1, name: 'Стол', sku: 'T1', categoryId: 0 }),
      sale(1, 1, 1000, { number: 'О-1', date: '2026-10-01' }),
      money('paymentin', 2, 1, 300, [], { number: 'А-2', date: '2026-11-02' }),
      sale(3, 1, 500, { number: 'О-3', date: '2026-11-02' }),
      money('cashin', 4, 1, 1200, [], { number: 'К-4', date: '2026-11-10' }),
    ]);
    expect(imported.failures).toEqual([]);
    const november = await auditor.get('/api/audit/statement?contractor=7&dateFrom=2026-11-01&dateTo=2026-11-30');
    expect(november.body.data.company.name).toBe('ООО «Север-2»');
    expect((await auditor.get('/api/audit/statement?contractor=7&dateFrom=2026-11-01&dateTo=2026-11-04')).body.data.company.name).toBe('ООО «Север»');
    expect((await auditor.get('/api/audit/statement?contractor=7&dateFrom=2025-11-01&dateTo=2025-11-30')).body.data.company).toBe(null);
    expect(november.body.data.opening).toBe(-1000);
    expect(november.body.data.lines.map((l: { type: string; id: number; balance: number }) => [`${l.type}-${l.id}`, l.balance])).toEqual([
      ['sale-3', -1500],
      ['paymentin-2', -1200],
      ['cashin-4', 0],
    ]);
    const ru = await auditor.get('/api/audit/statement?contractor=7&dateFrom=2026-11-01&dateTo=2026-11-30&format=csv-ru');
    expect(ru.text.replace(/^\uFEFF/, '').split('\r\n').slice(1, 6)).toEqual([
      '01.11.2026;Сальдо начальное;;;;;1000,00;',
      '02.11.2026;Отгрузка;3;О-3;500,00;;1500,00;',
      '02.11.2026;Входящий платёж;2;А-2;;300,00;1200,00;',
      '10.11.2026;Приходный кассовый ордер;4;К-4;;1200,00;0,00;0,00',
      '30.11.2026;Сальдо конечное;;;500,00;1500,00;0,00;0,00',
    ]);
  });
});

describe('caching', () => {
  test('every API answer that carries data says Cache-Control: no-store, JSON, CSV and XLSX alike', async () => {
    const { tb, auditor, api } = await auditService();
    expect((await importRecords(tb, [line('contractor', romashka), sale(100, 1, 100)])).failures).toEqual([]);
    const query = 'contractor=7&dateFrom=2026-01-01&dateTo=2026-12-31';
    const answers = [
      await api.get('/api/products'),
      await api.get('/api/product?id=1'),
      await auditor.get('/api/events?limit=2'),
      await auditor.get(`/api/audit/statement?${query}`),
      await auditor.get(`/api/audit/statement?${query}&format=csv`),
      await auditor.get(`/api/audit/statement?${query}&format=xlsx`),
      await api.get('/api/product?id=999'),
    ];
    expect(answers.map((answer) => [answer.status, answer.headers.get('cache-control')])).toEqual([
      [200, 'no-store'],
      [200, 'no-store'],
      [200, 'no-store'],
      [200, 'no-store'],
      [200, 'no-store'],
      [200, 'no-store'],
      [404, 'no-store'],
    ]);
  });
});
