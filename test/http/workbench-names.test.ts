import { describe, expect, test } from 'vitest';
import { importRecords, line, money, romashka, sale } from '../documents-fixtures.ts';
import { manualClock, testService as sqliteService } from '../helpers.ts';
import { TEST_ENGINE, engineService as testService } from '../engine-service.ts';
import { Browser } from '../workbench-client.ts';

/** A company of two contractors, a product, a sale to Ромашка paid in part, and an auditor reading Russian. */
async function named() {
  const service = await testService({ clock: manualClock() });
  const imported = await importRecords(service.tb, [
    line('contractor', romashka),
    line('contractor', { ...romashka, id: 8, name: 'ООО «Магистраль-4»', inn: '7701234568', phone1: '+7 916 555-00-01' }),
    line('contractor', { ...romashka, id: 9, name: 'ООО Ромашка плюс', inn: '7701234569', phone1: '+7 916 555-00-02' }),
    line('product', { id: 1, name: 'Стол', sku: 'T1', categoryId: 0, salePrice: 1000 }),
    sale(3, 1, 500, { number: 'О-3' }),
    money('paymentin', 4, 1, 300, [{ type: 'sale', id: 3 }], { number: 'ВП-4' }),
  ]);
  expect(imported.failures).toEqual([]);
  const { key } = await service.tb.keys.create({ name: 'аудитор', scope: 'audit' });
  const auditor = new Browser(service.app, { 'Accept-Language': 'ru' });
  expect((await auditor.signIn(key)).status).toBe(303);
  return { ...service, auditor };
}

describe('records by name beside their key', () => {
  test('the log names each record, and the records its changes name; a history names the records its changes name', async () => {
    const { auditor, tb } = await named();
    // The sale imported again for the other contractor: its history names both.
    expect((await importRecords(tb, [sale(3, 1, 500, { number: 'О-3', contractor: { id: 8 } })])).failures).toEqual([]);
    const log = (await auditor.get('/audit/log?order=oldest')).text;
    expect(log).toContain('<a href="/audit/contractor/7">ООО Ромашка (contractor-7)</a>');
    expect(log).toContain('<a href="/audit/contractor/8">ООО «Магистраль-4» (contractor-8)</a>');
    expect(log).toContain('<a href="/audit/record?stream=product-1">Стол (product-1)</a>');
    expect(log).toContain('<a href="/audit/document/sale/3">Отгрузка № О-3 от 02.11.2026 (sale-3)</a>');
    expect(log).toContain('<a href="/audit/document/paymentin/4">Входящий платёж № ВП-4 от 03.11.2026 (paymentin-4)</a>');
    // The changes in its details name the records too.
    expect(log).toContain('<b title="contractorId">Контрагент</b>: <span class="before"><a href="/audit/contractor/7">ООО Ромашка</a> (7)</span> → <span class="after"><a href="/audit/contractor/8">ООО «Магистраль-4»</a> (8)</span>');
    const history = (await auditor.get('/audit/document/sale/3')).text;
    expect(history).toContain('<b title="contractorId">Контрагент</b>: <span class="after"><a href="/audit/contractor/7">ООО Ромашка</a> (7)</span>');
    expect(history).toContain('<b title="products.1.pr_id">Строки 1 · Товар</b>: <span class="after"><a href="/audit/record?stream=product-1">Стол</a> (1)</span>');
    const record = (await auditor.get('/audit/record?stream=contractor-8')).text;
    expect(record).toMatch(/<h1>ООО «Магистраль-4» \(contractor-8\) на \d\d\.\d\d\.\d{4} \d\d:\d\d:\d\d<\/h1>/);
  });

  // Counted on SQLite, whose statements the test service traces.
  test.skipIf(TEST_ENGINE !== 'sqlite')('a page of the log reads the names of its records in one statement a kind, however many lines it has', async () => {
    let statements: string[] | undefined;
    const service = await sqliteService({ trace: (sql) => statements?.push(sql) });
    const contractors = Array.from({ length: 60 }, (_, i) => line('contractor', { ...romashka, id: i + 1, inn: null, kpp: null, name: `Контрагент ${i + 1}` }));
    expect((await importRecords(service.tb, contractors)).failures).toEqual([]);
    const { key } = await service.tb.keys.create({ name: 'аудитор', scope: 'audit' });
    const auditor = new Browser(service.app, { 'Accept-Language': 'ru' });
    await auditor.signIn(key);
    statements = [];
    const log = (await auditor.get('/audit/log?type=ContractorAdded')).text;
    const read = statements.filter((sql) => /FROM contractors WHERE id IN/.test(sql));
    statements = undefined;
    expect([...log.matchAll(/>Контрагент \d+ \(contractor-\d+\)</g)]).toHaveLength(50);
    expect(read).toHaveLength(1);
  });
});

describe('no ids to type', () => {
  const period = 'dateFrom=01.01.2026&dateTo=31.12.2026';

  test('the акт сверки takes a contractor by name, INN or phone: one found opens its act, several are a list of links, none is said', async () => {
    const { auditor } = await named();
    for (const [typed, id] of [['магистраль', 8], ['ООО Ромашка', 7], ['7701234569', 9], ['8 (916) 555-00-01', 8]] as const) {
      const found = await auditor.get(`/audit/statement?contractorText=${encodeURIComponent(typed)}&${period}`);
      expect([found.status, found.headers.get('location')], typed).toEqual([303, `/audit/statement?${period}&contractor=${id}`]);
    }
    const act = await auditor.get(`/audit/statement?${period}&contractor=8`);
    expect(act.status).toBe(200);
    expect(act.text).toContain('name="contractorText" size="28" placeholder="название, ИНН или телефон" value="ООО «Магистраль-4»" required>');
    // «ромашка» is part of two names: a list to pick from, each a link to the act of one, the period kept.
    const several = await auditor.get(`/audit/statement?contractorText=%D1%80%D0%BE%D0%BC%D0%B0%D1%88%D0%BA%D0%B0&${period}`);
    expect(several.status).toBe(200);
    expect(several.text).toContain('По запросу «ромашка» найдено несколько — выберите:');
    const links = [...several.text.matchAll(/<li data-stream="(contractor-\d+)"><a href="([^"]+)">([^<]+)<\/a>/g)].map((m) => [m[1], m[2].replaceAll('&amp;', '&'), m[3]]);
    expect(links).toEqual([
      ['contractor-7', `/audit/statement?${period}&contractor=7`, 'ООО Ромашка (contractor-7), ИНН 7701234567, +7 916 123-45-67'],
      ['contractor-9', `/audit/statement?${period}&contractor=9`, 'ООО Ромашка плюс (contractor-9), ИНН 7701234569, +7 916 555-00-02'],
    ]);
    const none = await auditor.get(`/audit/statement?contractorText=${encodeURIComponent('Лютик')}&${period}`);
    expect(none.status).toBe(404);
    expect(none.text).toContain('По запросу «Лютик» ничего не найдено.');
  });

  test('document search takes its contractor by name; the form shows the name of the one chosen', async () => {
    const { auditor } = await named();
    const found = await auditor.get(`/audit/documents?contractorText=${encodeURIComponent('ООО Ромашка')}&status=1`);
    expect([found.status, found.headers.get('location')]).toEqual([303, '/audit/documents?status=1&contractor=7']);
    const listed = await auditor.get('/audit/documents?status=1&contractor=7');
    expect(listed.text.match(/href="\/audit\/document\/[a-z]+\/\d+"/g)).toEqual(['href="/audit/document/paymentin/4"', 'href="/audit/document/sale/3"']);
    expect(listed.text).toContain('value="ООО Ромашка">');
    expect(listed.text).not.toContain('Id контрагента');
  });

  test('a record as of a moment is found by a name, an INN, a document’s number or a product’s SKU, its moment kept', async () => {
    const { auditor } = await named();
    for (const [typed, stream] of [['магистраль', 'contractor-8'], ['7701234567', 'contractor-7'], ['о-3', 'sale-3'], ['ВП-4', 'paymentin-4'], ['T1', 'product-1']] as const) {
      const found = await auditor.get(`/audit/record?stream=${encodeURIComponent(typed)}&at=01.12.2026`);
      expect([found.status, found.headers.get('location')], typed).toEqual([303, `/audit/record?stream=${stream}&at=01.12.2026`]);
    }
    const several = await auditor.get('/audit/record?stream=%D0%A0%D0%BE%D0%BC%D0%B0%D1%88%D0%BA%D0%B0');
    expect([...several.text.matchAll(/<li data-stream="([^"]+)">/g)].map((m) => m[1])).toEqual(['contractor-7', 'contractor-9']);
    expect((await auditor.get('/audit/record?stream=%D0%9B%D1%8E%D1%82%D0%B8%D0%BA')).status).toBe(404);
    // A key is still taken as it is.
    expect((await auditor.get('/audit/record?stream=sale-3')).status).toBe(200);
  });

  test('a product is found by the start of each word of its name, any case, ё as е; several are a list with their SKUs; the one named so exactly wins', async () => {
    const { auditor, api, tb } = await named();
    const products = [
      { id: 2, name: 'Усиленная ручка Заря-123', sku: 'Р-2', categoryId: 0 },
      { id: 3, name: 'Ручка шариковая Заря-456', sku: 'Р-3', categoryId: 0 },
      { id: 4, name: 'Стол письменный', sku: 'С-4', categoryId: 0 },
      { id: 5, name: 'Ёлочная игрушка', sku: 'Ё-5', categoryId: 0 },
    ];
    expect((await importRecords(tb, products.map((p) => line('product', p)))).failures).toEqual([]);
    for (const [typed, stream] of [['ручка заря 123', 'product-2'], ['ЗАРЯ-456', 'product-3'], ['елочн', 'product-5'], ['стол', 'product-1'], ['стол пис', 'product-4'], ['Р-3', 'product-3']] as const) {
      const found = await auditor.get(`/audit/record?stream=${encodeURIComponent(typed)}&at=01.12.2026`);
      expect([found.status, found.headers.get('location')], typed).toEqual([303, `/audit/record?stream=${stream}&at=01.12.2026`]);
    }
    const several = await auditor.get(`/audit/record?stream=${encodeURIComponent('ручк')}`);
    expect(several.status).toBe(200);
    expect([...several.text.matchAll(/<li data-stream="([^"]+)"><a href="[^"]+">([^<]+)<\/a>/g)].map((m) => [m[1], m[2]])).toEqual([
      ['product-2', 'Усиленная ручка Заря-123 (product-2), артикул Р-2'],
      ['product-3', 'Ручка шариковая Заря-456 (product-3), артикул Р-3'],
    ]);
    // A word is found by its start, not by letters inside it.
    expect((await auditor.get(`/audit/record?stream=${encodeURIComponent('учка')}`)).status).toBe(404);
    // The log's record filter finds it the same way.
    const logged = await auditor.get(`/audit/log?stream=${encodeURIComponent('шариковая')}&order=oldest`);
    expect(logged.headers.get('location')).toBe('/audit/log?stream=product-3&order=oldest');
    // Renamed: found by its new name only; a price update leaves the name's words as they were.
    expect((await api.write('/api/edit-product', 'products', [{ ...products[2], name: 'Тумба офисная' }])).status).toBe(200);
    expect((await api.write('/api/update-product-prices', 'data', [{ sku: 'С-4', salePrice: 900 }])).status).toBe(200);
    expect((await auditor.get(`/audit/record?stream=${encodeURIComponent('стол пис')}`)).status).toBe(404);
    expect((await auditor.get(`/audit/record?stream=${encodeURIComponent('тумба')}`)).headers.get('location')).toBe('/audit/record?stream=product-4');
  });

  test('a product search reads one word’s entries at most 1,000 far, from the start typed that begins the fewest, and never the product rows’ records', async () => {
    const { auditor, tb } = await named();
    const common = Array.from({ length: 1_050 }, (_, i) => line('product', { id: 10 + i, name: `Ручка синяя ${i}`, sku: `С-${i}`, categoryId: 0 }));
    const rare = line('product', { id: 2_000, name: 'Ручка синяя перьевая', sku: 'П-1', categoryId: 0 });
    expect((await importRecords(tb, [...common, rare])).failures).toEqual([]);
    // «ручка» and «синяя» begin more than 1,000 words each: «перьевая» is read instead, and finds it.
    const found = await auditor.get(`/audit/record?stream=${encodeURIComponent('ручка синяя перьевая')}`);
    expect(found.headers.get('location')).toBe('/audit/record?stream=product-2000');
    // A common start alone is a list of the first 20 and a note that there are more.
    const several = await auditor.get(`/audit/record?stream=${encodeURIComponent('синяя')}`);
    expect(several.text.match(/<li data-stream="product-\d+">/g)).toHaveLength(20);
    expect(several.text).toContain('Показаны первые 20; уточните запрос');
  });

  // Counted on SQLite, whose statements the test service traces.
  test.skipIf(TEST_ENGINE !== 'sqlite')('a product search’s statements: the words’ table, and the products’ ids and SKUs, nothing wider', async () => {
    let statements: string[] | undefined;
    const service = await sqliteService({ trace: (sql) => statements?.push(sql) });
    expect((await importRecords(service.tb, [line('product', { id: 1, name: 'Стол письменный', sku: 'T1', categoryId: 0 })])).failures).toEqual([]);
    const { key } = await service.tb.keys.create({ name: 'аудитор', scope: 'audit' });
    const auditor = new Browser(service.app, { 'Accept-Language': 'ru' });
    await auditor.signIn(key);
    statements = [];
    expect((await auditor.get(`/audit/record?stream=${encodeURIComponent('стол пис')}`)).headers.get('location')).toBe('/audit/record?stream=product-1');
    const read = statements.filter((sql) => /\bproducts?\b|product_name_words/.test(sql));
    statements = undefined;
    expect(read.some((sql) => sql.includes('product_name_words'))).toBe(true);
    for (const sql of read.filter((sql) => /FROM products\b/.test(sql))) expect(sql).toMatch(/^SELECT id(, sku)? FROM products WHERE /);
  });

  test('the log’s record filter takes a record by name or number too; the start of a key still filters by it', async () => {
    const { auditor } = await named();
    const found = await auditor.get(`/audit/log?stream=${encodeURIComponent('Магистраль')}&order=oldest`);
    expect([found.status, found.headers.get('location')]).toEqual([303, '/audit/log?stream=contractor-8&order=oldest']);
    const byNumber = await auditor.get('/audit/log?stream=%D0%9E-3');
    expect(byNumber.headers.get('location')).toBe('/audit/log?stream=sale-3');
    const sales = (await auditor.get('/audit/log?stream=SALE-')).text;
    expect([...sales.matchAll(/<tr data-seq=/g)].length).toBeGreaterThan(0);
    expect((await auditor.get('/audit/log?stream=contractor-status-x')).status).toBe(200);
  });
});
