import { describe, expect, test } from 'vitest';
import { engineService as testService } from '../engine-service.ts';
import { eventCount, expectRebuildEqualsLive, importRecords, line, money, romashka, sale, table } from '../documents-fixtures.ts';

async function serviceWith(records: Parameters<typeof importRecords>[1]) {
  const service = await testService();
  const report = await importRecords(service.tb, [line('product', table), line('contractor', romashka), ...records]);
  expect(report.failures).toEqual([]);
  return service;
}

const contractorOf = async (api: Awaited<ReturnType<typeof testService>>['api']) => (await api.post('/api/contractor', { id: 7 })).body.data;
const first = async (api: Awaited<ReturnType<typeof testService>>['api'], path: string) => (await api.get(path)).body.data[0];

describe('figures derived from history', () => {
  test('a hand-computed history, then un-posting, posting and revising move every figure', async () => {
    const history = [
      sale(1, 1, 1000),
      money('cashin', 1, 1, 300, [{ type: 'sale', id: 1 }]),
      money('paymentin', 1, 0, 50, [{ type: 'sale', id: 1 }]),
      line('customerreturn', { id: 1, date: '2026-11-04', status: 1, contractor: { id: 7 }, products: [{ pr_count: 1, pr_price: 100 }], basedOn: [{ type: 'sale', id: 1 }] }),
    ];
    const { api, tb } = await serviceWith(history);
    expect((await contractorOf(api)).balance).toBe(-600);
    expect((await contractorOf(api)).bonus.balance).toBe(50);
    expect((await first(api, '/api/sales')).paid).toBe(300);
    expect((await first(api, '/api/sales')).sum).toBe(1000);

    // Un-post the cash receipt.
    await importRecords(tb, [money('cashin', 1, 0, 300, [{ type: 'sale', id: 1 }])]);
    expect((await contractorOf(api)).balance).toBe(-900);
    const sold = await first(api, '/api/sales');
    expect(sold.paid).toBe(0);
    expect(sold.tree.childes.find((n: { type: string }) => n.type === 'cashin').status).toBe(0);
    expect((await first(api, '/api/cashins')).status).toBe(0);
    expect((await first(api, '/api/paymentins')).tree[0].childes[0].status).toBe(0);

    // Post the incoming payment.
    await importRecords(tb, [money('paymentin', 1, 1, 50, [{ type: 'sale', id: 1 }])]);
    expect((await contractorOf(api)).balance).toBe(-850);
    expect((await first(api, '/api/sales')).paid).toBe(50);

    // Revise the sale to 2000.00: the balance and the bonus accrual follow.
    await importRecords(tb, [sale(1, 1, 2000)]);
    expect((await contractorOf(api)).balance).toBe(-1850);
    expect((await contractorOf(api)).bonus.balance).toBe(100);
    expect((await first(api, '/api/sales')).sum).toBe(2000);

    // A posted bonus payment spends bonus and counts as paid.
    await importRecords(tb, [money('bonus', 1, 1, 30, [{ type: 'sale', id: 1 }])]);
    expect((await contractorOf(api)).bonus.balance).toBe(70);
    expect((await contractorOf(api)).balance).toBe(-1820);
    expect((await first(api, '/api/sales')).paid).toBe(80);
    await expectRebuildEqualsLive(tb);
  });

  test('sum is computed from lines in kopecks; an imported sum off by more than 0.01 rejects the line', async () => {
    const lines = [
      { pr_count: 3, pr_price: 33.33, pr_discount: 10 },
      { pr_count: 1.5, pr_price: 0.07 },
    ];
    const { api, tb } = await serviceWith([sale(1, 1, 0, { products: lines, sum: 90.09 })]);
    // 3 × 33.33 × 0.9 = 89.991 → 89.99; 1.5 × 0.07 = 0.105 → 0.11 (rounded half up per line)
    expect((await first(api, '/api/sales')).sum).toBe(90.1);
    const bad = await importRecords(tb, [sale(2, 1, 0, { products: lines, sum: 90.12 })]);
    expect(bad.failures).toEqual([{ line: 1, errors: [expect.objectContaining({ code: 'ERROR_SUM', field: 'sum' })] }]);
  });

  test('a sale made while the contractor is outside the bonus programme earns no bonus', async () => {
    const { api, tb } = await serviceWith([sale(1, 1, 1000)]);
    await importRecords(tb, [line('contractor', { ...romashka, bonus: { status: 0 } }), sale(2, 1, 500)]);
    await importRecords(tb, [line('contractor', { ...romashka, bonus: { status: 1, percent: 10 } })]);
    // Sale 1 earned 5 % while in the programme; sale 2 nothing; the later percent changes neither.
    expect((await contractorOf(api)).bonus).toEqual({ status: 1, percent: 10, usePercent: null, code: null, balance: 50 });
  });

  test('a four-level tree: order → invoice → sale → payment, and a second root on money documents', async () => {
    const { api, tb } = await serviceWith([
      line('customerorder', { id: 1, date: '2026-11-01', status: 1, contractor: { id: 7 }, created: '2026-11-01 09:00:00', products: [{ pr_count: 1, pr_price: 500 }] }),
      line('customerinvoice', { id: 1, date: '2026-11-01', status: 1, contractor: { id: 7 }, created: '2026-11-01 10:00:00', products: [{ pr_count: 1, pr_price: 500 }], basedOn: [{ type: 'customerorder', id: 1 }] }),
      sale(1, 1, 500, { basedOn: [{ type: 'customerinvoice', id: 1 }] }),
      line('customerorder', { id: 2, date: '2026-11-01', status: 0, contractor: { id: 7 }, products: [{ pr_count: 1, pr_price: 1 }] }),
      money('paymentin', 1, 1, 500, [{ type: 'sale', id: 1 }], { created: '2026-11-03 12:00:00', register: true }),
    ]);
    const node = (id: number, type: string, name: string, created: string | null, status: number, isThis: number, childes: unknown[] = []) => ({ id, type, name, created, status, isThis, childes });
    const chain = (self: string) =>
      node(1, 'customerorder', 'Заказ покупателя', '2026-11-01 09:00:00', 1, +(self === 'customerorder'), [
        node(1, 'customerinvoice', 'Счет покупателя', '2026-11-01 10:00:00', 1, +(self === 'customerinvoice'), [
          node(1, 'sale', 'Отгрузка', '2026-11-02 10:00:00', 1, +(self === 'sale'), [node(1, 'paymentin', 'Касса (Карточка)', '2026-11-03 12:00:00', 1, +(self === 'paymentin'))]),
        ]),
      ]);
    expect((await first(api, '/api/sales')).tree).toEqual(chain('sale'));
    expect((await first(api, '/api/customerinvoices')).tree).toEqual(chain('customerinvoice'));
    expect((await first(api, '/api/customerorders')).tree).toEqual(chain('customerorder'));
    expect((await first(api, '/api/paymentins')).tree).toEqual([chain('paymentin')]);
    // Paid reaches every document up the chain.
    for (const path of ['/api/sales', '/api/customerinvoices', '/api/customerorders']) expect((await first(api, path)).paid).toBe(500);

    // Linking the payment to the second order too: the payment shows both roots, each sales document one.
    await importRecords(tb, [money('paymentin', 1, 1, 500, [{ type: 'sale', id: 1 }, { type: 'customerorder', id: 2 }], { created: '2026-11-03 12:00:00', register: true })]);
    const roots = (await first(api, '/api/paymentins')).tree;
    expect(roots.map((r: { type: string; id: number }) => `${r.type}-${r.id}`)).toEqual(['customerorder-1', 'customerorder-2']);
    const second = (await api.get('/api/customerorders')).body.data[1];
    expect(second.tree).toEqual(node(2, 'customerorder', 'Заказ покупателя', null, 0, 1, [node(1, 'paymentin', 'Касса (Карточка)', '2026-11-03 12:00:00', 1, 0)]));
    expect(second.paid).toBe(500);

    // Unlinking splits the component again.
    await importRecords(tb, [money('paymentin', 1, 1, 500, [], { created: '2026-11-03 12:00:00', register: true })]);
    expect((await first(api, '/api/sales')).tree.childes[0].childes[0]).toEqual(node(1, 'sale', 'Отгрузка', '2026-11-02 10:00:00', 1, 1));
    expect((await first(api, '/api/sales')).paid).toBe(0);
    expect((await first(api, '/api/paymentins')).tree).toEqual([node(1, 'paymentin', 'Касса (Карточка)', '2026-11-03 12:00:00', 1, 1)]);
    await expectRebuildEqualsLive(tb);
  });

  test('a contractor edit re-renders that contractor’s documents', async () => {
    const { api, tb } = await serviceWith([sale(1, 1, 100), money('cashin', 1, 1, 100)]);
    await api.write('/api/edit-contractor', 'contractors', [{ id: 7, type: 'ЮЛ', name: 'АО Ромашка', contactPerson: 'Сидоров', phone1: romashka.phone1 }]);
    const shown = { id: 7, type: 'ЮЛ', name: 'АО Ромашка', contactPerson: 'Сидоров', inn: '7701234567', kpp: '770101001' };
    expect((await first(api, '/api/sales')).contractor).toEqual(shown);
    expect((await first(api, '/api/cashins')).contractor).toEqual(shown);
    await expectRebuildEqualsLive(tb);
  });
});

describe('import of documents', () => {
  test('re-importing the same file appends no event', async () => {
    const records = [line('product', table), line('contractor', romashka), sale(1, 1, 100), money('cashin', 1, 1, 100, [{ type: 'sale', id: 1 }])];
    const { tb } = await testService();
    const first = await importRecords(tb, records);
    expect(first.events).toBeGreaterThan(0);
    const before = await eventCount(tb);
    const again = await importRecords(tb, records);
    expect(again).toMatchObject({ applied: 4, failed: 0, events: 0 });
    expect(await eventCount(tb)).toBe(before);
  });

  test('bad lines are reported with their line number while the others go in', async () => {
    const { tb, api } = await testService();
    await importRecords(tb, [line('product', table)]);
    const report = await importRecords(tb, [
      line('contractor', romashka),
      '{not json',
      line('invoice', { id: 1 }),
      sale(1, 1, 100, { contractor: { id: 99 } }),
      sale(2, 1, 100, { date: '2026-02-30' }),
      money('cashin', 1, 1, 100, [{ type: 'sale', id: 5 }]),
      sale(3, 1, 100),
      money('paymentin', 1, 2, 100),
      sale(4, 1, 100, { basedOn: [{ type: 'sale', id: 4 }] }),
    ]);
    expect(report.failures.map((f) => [f.line, f.errors[0].code])).toEqual([
      [2, 'ERROR_LINE'],
      [3, 'ERROR_TYPE'],
      [4, 'ERROR_CONTRACTOR'],
      [5, 'ERROR_DATE'],
      [6, 'ERROR_BASED_ON'],
      [8, 'ERROR_STATUS'],
      [9, 'ERROR_BASED_ON'],
    ]);
    expect(report).toMatchObject({ lines: 9, applied: 2, failed: 7 });
    expect((await api.get('/api/sales')).body.data.map((s: { id: number }) => s.id)).toEqual([3]);
  });

  test('a link that would close a cycle is refused', async () => {
    const { tb } = await serviceWith([line('customerorder', { id: 1, date: '2026-11-01', status: 1, contractor: { id: 7 }, products: [] }), sale(1, 1, 10, { basedOn: [{ type: 'customerorder', id: 1 }] })]);
    const report = await importRecords(tb, [line('customerorder', { id: 1, date: '2026-11-01', status: 1, contractor: { id: 7 }, products: [], basedOn: [{ type: 'sale', id: 1 }] })]);
    expect(report.failures[0].errors[0].code).toBe('ERROR_BASED_ON');
  });

  test('every document type and every catalogue type is accepted', async () => {
    const { tb } = await testService();
    const lineTypes = ['customerorder', 'customerinvoice', 'sale', 'customerreturn', 'supplierorder', 'supplierinvoice', 'purchase', 'supplierreturn'];
    const moneyTypes = ['cashin', 'paymentin', 'cashout', 'paymentout', 'bonus'];
    const report = await importRecords(tb, [
      line('product_category', { id: 1, name: 'Мебель' }),
      line('product_brand', { id: 1, name: 'ИКЕА' }),
      line('product', { id: 1, name: 'Стол', sku: 'T-1', categoryId: 1, brandId: 1 }),
      line('contractor', romashka),
      ...lineTypes.map((type) => line(type, { id: 1, date: '2026-11-01', status: 1, contractor: { id: 7 }, products: [{ pr_id: 1, pr_count: 1, pr_price: 10 }] })),
      ...moneyTypes.map((type) => money(type, 1, 1, 10)),
    ]);
    expect(report.failures).toEqual([]);
    expect(report.applied).toBe(17);
    // + purchase, customerreturn, cashin, paymentin, bonus; − sale, supplierreturn, cashout, paymentout.
    expect(await tb.contractors.byId(7)).toBeDefined();
    expect(JSON.parse((await tb.contractors.jsonById(7))!).balance).toBe(10);
  });
});

describe('document lists', () => {
  const dated = (type: string, id: number, date: string, status: number) =>
    type === 'sale' || type === 'customerorder' || type === 'customerinvoice'
      ? line(type, { id, date, status, contractor: { id: 7 }, products: [{ pr_count: 1, pr_price: id }] })
      : line(type, { id, date, status, contractor: { id: 7 }, sum: id });

  const paths: [string, string][] = [
    ['/api/customerorders', 'customerorder'],
    ['/api/customerinvoices', 'customerinvoice'],
    ['/api/sales', 'sale'],
    ['/api/cashins', 'cashin'],
    ['/api/paymentins', 'paymentin'],
    ['/api/cashouts', 'cashout'],
    ['/api/paymentouts', 'paymentout'],
  ];

  test.each(paths)('%s: sorted by id, paged, filtered by inclusive dates and status, allCount of the filtered set', async (path, type) => {
    // Ids imported out of order, dates not in id order.
    const { api } = await serviceWith([
      dated(type, 5, '2026-10-31', 1),
      dated(type, 2, '2026-11-01', 0),
      dated(type, 9, '2026-11-30', 1),
      dated(type, 1, '2026-12-01', 1),
      dated(type, 3, '2026-11-15', 1),
    ]);
    const ids = async (query: string) => {
      const res = await api.get(`${path}${query}`);
      expect(res.status).toBe(200);
      return [res.body.meta, res.body.data.map((d: { id: number; type: string }) => (expect(d.type).toBe(type), d.id))];
    };
    expect(await ids('')).toEqual([{ allCount: 5, count: 5, limit: 50, offset: 0 }, [1, 2, 3, 5, 9]]);
    expect(await ids('/?limit=2&offset=1')).toEqual([{ allCount: 5, count: 2, limit: 2, offset: 1 }, [2, 3]]);
    expect(await ids('?dateFrom=2026-11-01&dateTo=2026-11-30')).toEqual([{ allCount: 3, count: 3, limit: 50, offset: 0 }, [2, 3, 9]]);
    expect(await ids('?dateFrom=2026-11-01&dateTo=2026-11-30&limit=1&offset=2')).toEqual([{ allCount: 3, count: 1, limit: 1, offset: 2 }, [9]]);
    expect(await ids('?dateFrom=2026-11-01&status=1')).toEqual([{ allCount: 3, count: 3, limit: 50, offset: 0 }, [1, 3, 9]]);
    expect(await ids('?dateTo=2026-11-01')).toEqual([{ allCount: 2, count: 2, limit: 50, offset: 0 }, [2, 5]]);
    expect(await ids('?status=0')).toEqual([{ allCount: 1, count: 1, limit: 50, offset: 0 }, [2]]);
    expect(await ids('?status=1&offset=1&limit=2')).toEqual([{ allCount: 4, count: 2, limit: 2, offset: 1 }, [3, 5]]);
    expect(await ids('?dateFrom=2026-12-01&dateTo=2026-11-01')).toEqual([{ allCount: 0, count: 0, limit: 50, offset: 0 }, []]);
    expect(await ids('?offset=10')).toEqual([{ allCount: 5, count: 0, limit: 50, offset: 10 }, []]);
  });

  test('every offset of a filtered list gives the right slice, whichever end the page is read from', async () => {
    const ids = [4, 11, 2, 9, 7, 1, 12, 5, 3, 8, 10, 6];
    const { api } = await serviceWith(ids.map((id) => dated('sale', id, id % 3 === 0 ? '2026-10-15' : '2026-11-10', id % 2)));
    const filters: [string, number[]][] = [
      ['dateFrom=2026-11-01', [1, 2, 4, 5, 7, 8, 10, 11]],
      ['dateFrom=2026-11-01&status=1', [1, 5, 7, 11]],
      // Exactly one calendar month goes by the month index.
      ['dateFrom=2026-11-01&dateTo=2026-11-30', [1, 2, 4, 5, 7, 8, 10, 11]],
      ['dateFrom=2026-11-01&dateTo=2026-11-30&status=1', [1, 5, 7, 11]],
      ['dateFrom=2026-10-01&dateTo=2026-10-31&status=0', [6, 12]],
      ['dateFrom=2026-10-01&dateTo=2026-10-30', [3, 6, 9, 12]],
      ['status=0', [2, 4, 6, 8, 10, 12]],
    ];
    for (const [filter, matching] of filters) {
      for (const limit of [1, 3, 50]) {
        for (let offset = 0; offset <= matching.length + 1; offset++) {
          const res = await api.get(`/api/sales?${filter}&limit=${limit}&offset=${offset}`);
          expect(res.body.meta).toEqual({ allCount: matching.length, count: matching.slice(offset, offset + limit).length, limit, offset });
          expect(res.body.data.map((d: { id: number }) => d.id)).toEqual(matching.slice(offset, offset + limit));
        }
      }
    }
  });

  test('a document re-dated into another month leaves one month list and joins the other in id order; rebuild equals live', async () => {
    const ids = [4, 11, 2, 9, 7, 1];
    const { api, tb } = await serviceWith(ids.map((id) => dated('sale', id, id < 5 ? '2026-10-15' : '2026-11-10', 1)));
    const monthIds = async (month: string, limit: number, offset: number) => {
      const res = await api.get(`/api/sales?dateFrom=${month}-01&dateTo=${month}-${month.endsWith('10') ? 31 : 30}&limit=${limit}&offset=${offset}`);
      return [res.body.meta.allCount, res.body.data.map((d: { id: number }) => d.id)];
    };
    expect(await monthIds('2026-10', 50, 0)).toEqual([3, [1, 2, 4]]);
    expect(await monthIds('2026-11', 50, 0)).toEqual([3, [7, 9, 11]]);
    // 2 moves to November, where it is the lowest id; 9 moves to October, where it is the highest.
    const report = await importRecords(tb, [dated('sale', 2, '2026-11-20', 1), dated('sale', 9, '2026-10-01', 1)]);
    expect(report.failures).toEqual([]);
    const expected: Record<string, number[]> = { '2026-10': [1, 4, 9], '2026-11': [2, 7, 11] };
    for (const [month, matching] of Object.entries(expected)) {
      for (let offset = 0; offset <= matching.length; offset++) {
        expect(await monthIds(month, 2, offset)).toEqual([matching.length, matching.slice(offset, offset + 2)]);
      }
    }
    await expectRebuildEqualsLive(tb);
  });

  test.each([
    ['limit=0', 'ERROR_LIMIT'],
    ['limit=51', 'ERROR_LIMIT'],
    ['limit=-1', 'ERROR_LIMIT'],
    ['offset=x', 'ERROR_OFFSET'],
    ['offset=1.0', 'ERROR_OFFSET'],
    ['dateFrom=2025-02-30', 'ERROR_DATEFROM'],
    ['dateFrom=2025-2-3', 'ERROR_DATEFROM'],
    ['dateTo=yesterday', 'ERROR_DATETO'],
    ['dateTo=2025-13-01', 'ERROR_DATETO'],
    ['status=2', 'ERROR_STATUS'],
    ['status=', 'ERROR_STATUS'],
    ['status=01', 'ERROR_STATUS'],
  ])('%s is %s on every list', async (query, code) => {
    const { api } = await testService();
    for (const [path] of paths) {
      const res = await api.get(`${path}?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { code: string }) => e.code)).toEqual([code]);
    }
  });

  test('every error of a request is listed', async () => {
    const { api } = await testService();
    const res = await api.get('/api/sales?limit=0&offset=-1&dateFrom=x&dateTo=y&status=3');
    expect(res.body.errors.map((e: { code: string }) => e.code).sort()).toEqual(['ERROR_DATEFROM', 'ERROR_DATETO', 'ERROR_LIMIT', 'ERROR_OFFSET', 'ERROR_STATUS']);
  });

  test('keys and auth on the lists', async () => {
    const { app } = await testService();
    expect((await (await app.request('/api/sales')).json()).errors[0].code).toBe('ERROR_NO_API_KEY');
    expect((await (await app.request('/api/cashins', { headers: { Authorization: 'Bearer x' } })).json()).errors[0].code).toBe('ERROR_USER_ACCESS');
  });

  test('the record shapes: sales documents, cash documents without bankAccount, payments with it', async () => {
    const company = { id: 1, name: 'ООО Торговый дом', inn: '7700000000', kpp: '770001001', bankAccount: { id: 1, name: 'Сбербанк', bic: '044525225', correspondent_account: '30101810400000000225', current_account: '40702810900000000001' } };
    const { api } = await serviceWith([
      sale(1, 1, 150, {
        number: 'П-1',
        comment: 'срочно',
        user: { id: 2, type: 'user', name: 'Кассир' },
        edited: '2026-11-02 11:30:00',
        company,
        stock: { id: 3, name: 'Склад' },
        vat: 1,
        fiscal: 1,
        products: [{ pr_id: 1, pr_name: 'Стол', pr_sku: 'T-1', pr_count: 2, pr_unit: { name: 'шт', code: '796' }, pr_price: 75, pr_vat: 20, pr_discount: 0 }],
      }),
      money('cashin', 1, 1, 150, [], { company, purpose: 'оплата', vat: 25, register: true, number: 'К-1' }),
      money('paymentout', 1, 0, 10, [], { company, purpose: 'аренда' }),
      money('cashout', 1, 0, 10),
      money('paymentin', 1, 0, 10),
    ]);
    const contractor = { id: 7, type: 'ЮЛ', name: 'ООО Ромашка', contactPerson: 'Иванов Иван', inn: '7701234567', kpp: '770101001' };
    expect(await first(api, '/api/sales')).toEqual({
      id: 1,
      type: 'sale',
      status: 1,
      number: 'П-1',
      date: '2026-11-02',
      contractor,
      comment: 'срочно',
      user: { id: 2, type: 'user', name: 'Кассир' },
      created: '2026-11-02 10:00:00',
      edited: '2026-11-02 11:30:00',
      sum: 150,
      company: { id: 1, name: 'ООО Торговый дом', inn: '7700000000', kpp: '770001001' },
      stock: { id: 3, name: 'Склад' },
      vat: 1,
      paid: 0,
      fiscal: 1,
      products: [{ pr_id: 1, pr_name: 'Стол', pr_sku: 'T-1', pr_count: 2, pr_unit: { name: 'шт', code: '796' }, pr_price: 75, pr_vat: 20, pr_discount: 0 }],
      tree: { id: 1, type: 'sale', name: 'Отгрузка', created: '2026-11-02 10:00:00', status: 1, isThis: 1, childes: [] },
    });
    const cash = await first(api, '/api/cashins');
    expect(Object.keys(cash)).toEqual(['id', 'name', 'type', 'status', 'number', 'date', 'contractor', 'comment', 'user', 'created', 'edited', 'sum', 'company', 'purpose', 'vat', 'tree']);
    expect(cash).toMatchObject({ name: 'Касса (Наличные)', type: 'cashin', sum: 150, vat: 25, purpose: 'оплата', company: { id: 1, name: 'ООО Торговый дом', inn: '7700000000', kpp: '770001001' } });
    expect(cash.company).not.toHaveProperty('bankAccount');
    const out = await first(api, '/api/paymentouts');
    expect(out).toMatchObject({ name: 'Исходящий платеж', type: 'paymentout', company });
    expect((await first(api, '/api/cashouts')).name).toBe('Расходный ордер');
    expect((await first(api, '/api/paymentins')).name).toBe('Входящий платеж');
    expect((await first(api, '/api/customerorders')) ?? null).toBeNull();
  });

  test('orders and invoices carry no fiscal key', async () => {
    const { api } = await serviceWith([line('customerorder', { id: 1, date: '2026-11-01', status: 0, contractor: { id: 7 }, products: [] })]);
    expect(await first(api, '/api/customerorders')).not.toHaveProperty('fiscal');
  });
});
