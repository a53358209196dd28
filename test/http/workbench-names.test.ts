import { describe, expect, test } from 'vitest';
import { importRecords, line, money, romashka, sale } from '../documents-fixtures.ts';
import { manualClock, testService as sqliteService } from '../helpers.ts';
import { engineService as testService } from '../engine-service.ts';
import { Browser } from '../workbench-client.ts';

/** A company of two contractors, a product, a sale to Ромашка paid in part, and an auditor reading Russian. */
async function named() {
  const service = await testService({ clock: manualClock() });
  const imported = await importRecords(service.tb, [
    line('contractor', romashka),
    line('contractor', { ...romashka, id: 8, name: 'ООО «Магистраль-4»', inn: '7701234568', phone1: '+7 916 555-00-01' }),
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

  test('a page of the log reads the names of its records in one statement a kind, however many lines it has', async () => {
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
