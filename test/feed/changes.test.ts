import { gunzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { ApiClient, manualClock } from '../helpers.ts';
import { engineService as testService } from '../engine-service.ts';
import { importRecords, line, romashka, sale } from '../documents-fixtures.ts';
import { changePage } from '../../src/feed/schemas.ts';
import { SCAN_WINDOW, changesAfter } from '../../src/feed/pages.ts';
import { TAIL_ROWS } from '../../src/feed/tail.ts';
import type { SqlSession } from '../../src/storage/sql.ts';
import { changeJson } from '../../src/feed/change.ts';

const codes = (body: { errors: { code: string }[] }) => body.errors.map((e) => e.code).sort();

async function service() {
  const s = await testService({ clock: manualClock(Date.parse('2026-11-22T09:00:00Z')) });
  const auditor = new ApiClient(s.app, (await s.tb.keys.create({ name: 'auditor', scope: 'audit' })).key);
  return { ...s, auditor };
}

describe('GET /api/changes', () => {
  test('a page of changes in seq order: the record, the data in rubles, nothing of who for an api key', async () => {
    const { api, auditor, tb } = await service();
    expect((await api.write('/api/add-product-category', 'category', [{ name: 'Мебель' }])).status).toBe(200);
    const added = await api.write('/api/add-product', 'products', [{ name: 'Стол', sku: 'T1', categoryId: 1, salePrice: 1000.5 }]);
    expect(added.status).toBe(200);
    expect((await api.write('/api/update-product-prices', 'data', [{ sku: 'T1', minPrice: 800.1 }])).status).toBe(200);
    const imported = await importRecords(tb, [line('contractor', romashka), sale(187, 1, 1234.56), line('product', { name: 'Кресло', sku: 'K1', categoryId: 1, additionalPrices: [{ name: 'опт', price: 900.25 }] })]);
    expect(imported.failures).toEqual([]);

    const res = await api.get('/api/changes');
    expect(res.status).toBe(200);
    expect(changePage.parse(res.body)).toEqual(res.body);
    const { meta, data } = res.body;
    expect(meta).toEqual({ after: 0, limit: 100, count: data.length, next: data.at(-1).seq });
    expect(data.map((c: { seq: number }) => c.seq)).toEqual(Array.from({ length: data.length }, (_, i) => i + 1));
    expect(data.map((c: { type: string; record: unknown }) => [c.type, c.record])).toEqual([
      ['CategoryAdded', { kind: 'category', id: 1 }],
      ['ProductAdded', { kind: 'product', id: 1 }],
      ['ProductPricesUpdated', { kind: 'product', id: 1 }],
      ['ContractorAdded', { kind: 'contractor', id: 7 }],
      ['DocumentRecorded', { kind: 'document', type: 'sale', id: 187 }],
      ['ProductAdded', { kind: 'product', id: 2 }],
    ]);
    expect(data[1].data).toMatchObject({ id: 1, name: 'Стол', salePrice: 1000.5, minPrice: null, additionalPrices: [] });
    expect(data[5].data).toMatchObject({ id: 2, additionalPrices: [{ name: 'опт', price: 900.25 }] });
    expect(data[2].data).toEqual({ id: 1, changes: { minPrice: 800.1 } });
    expect(data[4].data.fields).toMatchObject({ sum: 1234.56, products: [expect.objectContaining({ pr_price: 1234.56 })] });
    expect(data[0].recordedAt).toBe('2026-11-22T09:00:00.000Z');
    // Nothing of the key or the access token that made a change reaches an api key; an auditor reads who.
    expect(JSON.stringify(res.body)).not.toMatch(/keyId|tokenHash|"token"|"meta":\{"keyId/);
    expect(data.every((c: object) => !('meta' in c))).toBe(true);
    const audited = await auditor.get('/api/changes?limit=2');
    expect(audited.body.data[0].meta).toEqual({ keyId: 1, tokenHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(audited.body.meta).toEqual({ after: 0, limit: 2, count: 2, next: 2 });
  });

  test('text that reads like an amount stays text; every amount, however deep, in rubles', async () => {
    const { api, tb } = await service();
    const tricky = 'Стол {"price":5,"salePrice":100,"sum":7}';
    const product = { name: tricky, sku: ',"minPrice":3', categoryId: 0, salePrice: 0.5, purchasePrice: 0, additionalPrices: [{ name: ',"price":1', price: 12345.67 }] };
    const comment = '{"sum":100,"pr_price":1}';
    const imported = await importRecords(tb, [
      line('product', product),
      line('contractor', romashka),
      sale(5, 1, 0.07, { comment, products: [{ pr_id: 1, pr_name: ',"pr_price":2', pr_count: 1, pr_price: 0.07 }] }),
    ]);
    expect(imported.failures).toEqual([]);
    expect((await api.write('/api/update-product-prices', 'data', [{ sku: ',"minPrice":3', minPrice: 1e11, salePrice: null }])).status).toBe(200);

    const { data } = (await api.get('/api/changes')).body;
    const of = (type: string) => data.find((c: { type: string }) => c.type === type).data;
    expect(of('ProductAdded')).toMatchObject({ name: tricky, sku: ',"minPrice":3', salePrice: 0.5, purchasePrice: 0, minPrice: null, additionalPrices: [{ name: ',"price":1', price: 12345.67 }] });
    expect(of('ProductPricesUpdated')).toEqual({ id: 1, changes: { minPrice: 1e11, salePrice: null } });
    expect(of('DocumentRecorded').fields).toMatchObject({ comment, sum: 0.07, products: [expect.objectContaining({ pr_name: ',"pr_price":2', pr_price: 0.07 })] });
  });

  test("a change's data found in its stored text is what parsing it gives: every event of a company's log", async () => {
    const { api, tb } = await service();
    const product = { name: 'Стол', sku: 'T-1', categoryId: 0, minPrice: 1.01, salePrice: 0.5, purchasePrice: 1e9, additionalPrices: [{ name: 'опт', price: 12345.67 }] };
    const imported = await importRecords(tb, [line('product', product), line('contractor', romashka), sale(5, 1, 0.08, { products: [{ pr_id: 1, pr_name: 'Стол', pr_count: 2, pr_price: 0.04 }] })]);
    expect(imported.failures).toEqual([]);
    expect((await api.write('/api/update-product-prices', 'data', [{ sku: 'T-1', minPrice: 2.5, salePrice: null }])).status).toBe(200);
    expect((await api.write('/api/edit-product', 'products', [{ id: 1, name: 'Стол дубовый', sku: 'T-1', categoryId: 0, purchasePrice: 9.99 }])).status).toBe(200);
    const rows = (await changesAfter(tb.engine.readOn, 0, 1000)).rows;
    expect(rows.map((row) => row.type)).toEqual(expect.arrayContaining(['ProductAdded', 'ProductPricesUpdated', 'ProductEdited', 'DocumentRecorded']));
    // schemaVersion 0 has no upcasting step: the data is parsed, its money converted by its schema, and written again.
    for (const row of rows) {
      const rendered = (schemaVersion: number) => JSON.parse(changeJson({ ...row, schemaVersion, audit: undefined }, 'audit'));
      expect(rendered(row.schemaVersion)).toEqual(rendered(0));
    }
  });

  test('pages follow one another by next, the last one ending where the log does', async () => {
    const { api } = await service();
    const products = Array.from({ length: 7 }, (_, i) => ({ name: `Товар ${i}`, sku: `S${i}`, categoryId: 0 }));
    expect((await api.write('/api/add-product', 'products', products)).status).toBe(200);
    const seen: number[] = [];
    for (let after = 0, pages = 0; pages < 10; pages++) {
      const { body } = await api.get(`/api/changes?after=${after}&limit=3`);
      seen.push(...body.data.map((c: { seq: number }) => c.seq));
      if (body.meta.count === 0) {
        expect(body.meta.next).toBe(after);
        break;
      }
      after = body.meta.next;
    }
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  test('types: event types and record kinds; next passes what a filter skipped, however far', async () => {
    const { api, tb } = await service();
    expect((await api.write('/api/add-product-brand', 'brand', [{ name: 'Дуб' }])).status).toBe(200);
    const products = Array.from({ length: 5 }, (_, i) => ({ name: `Товар ${i}`, sku: `S${i}`, categoryId: 0 }));
    expect((await api.write('/api/add-product', 'products', products)).status).toBe(200);
    expect((await api.write('/api/add-product-brand', 'brand', [{ name: 'Бук' }])).status).toBe(200);

    const brands = await api.get('/api/changes?types=brand');
    expect(brands.body.data.map((c: { seq: number }) => c.seq)).toEqual([1, 7]);
    expect(brands.body.meta.next).toBe(7);
    const either = await api.get('/api/changes?types=BrandAdded,%20ProductAdded&limit=2');
    expect(either.body.data.map((c: { seq: number }) => c.seq)).toEqual([1, 2]);
    expect(either.body.meta.next).toBe(2);
    const none = await api.get('/api/changes?types=DocumentPosted');
    expect(none.body).toEqual({ meta: { after: 0, limit: 100, count: 0, next: 7 }, data: [] });

    // A filter matching nothing over more than a window of the log moves on a window a page, never scanning it all.
    const many = Array.from({ length: SCAN_WINDOW + 10 }, (_, i) => line('product', { name: `P${i}`, sku: `P${i}`, categoryId: 0 }));
    expect((await importRecords(tb, many)).failures).toEqual([]);
    const first = await api.get('/api/changes?after=7&types=contractor');
    expect(first.body.meta).toEqual({ after: 7, limit: 100, count: 0, next: 7 + SCAN_WINDOW });
    const second = await api.get(`/api/changes?after=${first.body.meta.next}&types=contractor`);
    expect(second.body.meta.next).toBe(7 + SCAN_WINDOW + 10);
  });

  test('bad values: ERROR_AFTER, ERROR_LIMIT, ERROR_TYPES, ERROR_WAIT, each named', async () => {
    const { api } = await service();
    for (const [query, code] of [
      ['after=-1', 'ERROR_AFTER'],
      ['after=x', 'ERROR_AFTER'],
      ['limit=0', 'ERROR_LIMIT'],
      ['limit=1001', 'ERROR_LIMIT'],
      ['types=', 'ERROR_TYPES'],
      ['types=Nonsense', 'ERROR_TYPES'],
      ['types=product,,brand', 'ERROR_TYPES'],
      ['wait=61', 'ERROR_WAIT'],
      ['wait=1.5', 'ERROR_WAIT'],
    ]) {
      const res = await api.get(`/api/changes?${query}`);
      expect([query, res.status, codes(res.body)]).toEqual([query, 400, [code]]);
    }
    const all = await api.get('/api/changes?after=-1&limit=0&types=x&wait=99');
    expect(codes(all.body)).toEqual(['ERROR_AFTER', 'ERROR_LIMIT', 'ERROR_TYPES', 'ERROR_WAIT']);
    expect((await api.get('/api/changes?types=Nonsense')).body.errors[0].message).toMatch(/"Nonsense" is neither an event type/);
    // The document names every one of them, and the stream's own.
    const document = await (await (await service()).app.request('/api/openapi.json')).json();
    const operation = document.paths['/api/changes'].get;
    expect(operation['x-error-codes']).toEqual(expect.arrayContaining(['ERROR_AFTER', 'ERROR_LIMIT', 'ERROR_TYPES', 'ERROR_WAIT', 'ERROR_LAST_EVENT_ID', 'ERROR_TOO_MANY_STREAMS']));
    expect(Object.keys(operation.responses['200'].content)).toEqual(['application/json', 'text/event-stream']);
  });

  test('a long-poll answers as soon as a change is committed, not at its timeout; empty at its timeout', async () => {
    const { api } = await service();
    expect((await api.write('/api/add-product-brand', 'brand', [{ name: 'Дуб' }])).status).toBe(200);
    const started = performance.now();
    const empty = await api.get('/api/changes?after=1&wait=1');
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
    expect(empty.body).toEqual({ meta: { after: 1, limit: 100, count: 0, next: 1 }, data: [] });

    let answered = false;
    const polling = api.get('/api/changes?after=1&wait=60').then((res) => ((answered = true), res));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(answered).toBe(false);
    const writeAt = performance.now();
    expect((await api.write('/api/add-product-brand', 'brand', [{ name: 'Бук' }])).status).toBe(200);
    const res = await polling;
    // Far from its 60 s: woken by the commit.
    expect(performance.now() - writeAt).toBeLessThan(30_000);
    expect(res.body.data.map((c: { seq: number; record: unknown }) => [c.seq, c.record])).toEqual([[2, { kind: 'brand', id: 2 }]]);
  });

  test('long-polls woken by one commit at one position: each key gets the answer of its scope, gzipped when asked', async () => {
    const { api, auditor } = await service();
    const poll = (client: ApiClient, zipped: boolean) =>
      client.app.request('/api/changes?after=0&wait=60', { headers: { Authorization: `Bearer ${client.key}`, ...(zipped ? { 'Accept-Encoding': 'gzip' } : {}) } });
    const polls = [poll(api, false), poll(auditor, false), poll(api, true), poll(auditor, true)];
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await api.write('/api/add-product-brand', 'brand', Array.from({ length: 30 }, (_, i) => ({ name: `Бренд ${i}` })))).status).toBe(200);
    const answers = await Promise.all(polls);
    expect(answers.map((res) => res.headers.get('content-encoding'))).toEqual([null, null, 'gzip', 'gzip']);
    const bodies = await Promise.all(answers.map(async (res) => JSON.parse(res.headers.get('content-encoding') === 'gzip' ? gunzipSync(Buffer.from(await res.arrayBuffer())).toString() : await res.text())));
    bodies.forEach((body, i) => {
      expect(body.meta).toEqual({ after: 0, limit: 100, count: 30, next: 30 });
      expect(body.data.every((c: object) => 'meta' in c === (i % 2 === 1))).toBe(true);
    });
  });

  test('a filtered long-poll waits past changes it does not want, and answers with the one it does', async () => {
    const { api } = await service();
    const polling = api.get('/api/changes?types=contractor&wait=60');
    expect((await api.write('/api/add-product-brand', 'brand', [{ name: 'Дуб' }])).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await api.write('/api/add-contractor', 'contractors', [{ type: 'ФЛ', name: 'Петров', contactPerson: 'П', phone1: '+7 916 000-00-01' }])).status).toBe(200);
    const res = await polling;
    expect(res.body.data.map((c: { type: string }) => c.type)).toEqual(['ContractorAdded']);
    expect(res.body.meta.next).toBe(res.body.data[0].seq);
  });
});

describe('followers woken by one commit', () => {
  const counting = (session: SqlSession) => {
    // Reads of rows, as arrays or objects (the head's `value` is not counted).
    const counted: { reads: number; session: SqlSession } = {
      reads: 0,
      session: {
        ...session,
        rows: (...args: Parameters<SqlSession['rows']>) => (counted.reads++, session.rows(...args)),
        objects: (...args: Parameters<SqlSession['objects']>) => (counted.reads++, session.objects(...args)),
      } as SqlSession,
    };
    return counted;
  };

  test('each at its own position, they share one read of the rows the commit appended, and each change is rendered once a scope', async () => {
    const { api, tb } = await service();
    expect((await api.write('/api/add-product-brand', 'brand', [{ name: 'Север' }, { name: 'Юг' }, { name: 'Запад' }])).status).toBe(200);
    const counted = counting(tb.engine.readOn);
    const pages = await Promise.all(Array.from({ length: 50 }, (_, i) => changesAfter(counted.session, i % 3, 100)));
    expect(counted.reads).toBe(1);
    expect(pages.map((page) => page.rows.map((row) => row.seq))).toEqual(Array.from({ length: 50 }, (_, i) => [1, 2, 3].slice(i % 3)));
    const [row] = pages[0].rows;
    expect(pages.every((page) => page.rows.at(-1) === pages[0].rows.at(-1))).toBe(true);
    expect(changeJson(row, 'api')).toBe(changeJson(row, 'api'));
    expect(changeJson(row, 'audit')).toContain('"meta"');
    expect(changeJson(row, 'api')).not.toContain('"meta"');

    // Nothing committed since: nothing is read again. A commit: its rows only, once for all.
    await changesAfter(counted.session, 0, 100);
    expect(counted.reads).toBe(1);
    expect((await api.write('/api/add-product-brand', 'brand', [{ name: 'Восток' }])).status).toBe(200);
    const next = await Promise.all([changesAfter(counted.session, 3, 100), changesAfter(counted.session, 1, 100, new Set(['BrandAdded']))]);
    expect(counted.reads).toBe(2);
    expect(next.map((page) => page.rows.map((r) => r.seq))).toEqual([[4], [2, 3, 4]]);
    expect(next[1]).toMatchObject({ next: 4 });
  });

  test('one further behind than the tail reaches reads its pages from the database, and they are the same', async () => {
    const { tb } = await service();
    const many = Array.from({ length: TAIL_ROWS + 50 }, (_, i) => line('product', { name: `P${i}`, sku: `P${i}`, categoryId: 0 }));
    expect((await importRecords(tb, many)).failures).toEqual([]);
    const head = await tb.audit.lastSeq();
    const counted = counting(tb.engine.readOn);
    const near = await changesAfter(counted.session, head - 10, 100);
    expect(counted.reads).toBe(1);
    const far = await changesAfter(counted.session, 0, 100);
    expect(counted.reads).toBe(2);
    expect(far.rows.map((row) => row.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(near.rows.map((row) => row.seq)).toEqual(Array.from({ length: 10 }, (_, i) => head - 9 + i));
    const fresh = await changesAfter(tb.engine.readOn, head - 10, 100);
    expect(near.rows).toEqual(fresh.rows);
  });
});
