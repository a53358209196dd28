import { describe, expect, test } from 'vitest';
import { API_CSV, statementCsv } from '../../src/audit/statement-csv.ts';
import { walkStatement, wholeStatement } from '../../src/audit/statement.ts';
import { BALANCE_CREDIT_TYPES } from '../../src/records/document/events.ts';
import type { PostedDocument, StatementReads } from '../../src/projections/documents/queries.ts';
import { ApiClient, testService } from '../helpers.ts';
import { importRecords, line, money, romashka, sale } from '../documents-fixtures.ts';

/** A contractor's posted documents, in the statement's order, as the read tables would answer for them (keys: their places). */
function readsOf(posted: PostedDocument[]): StatementReads {
  const within = (from: string, to: string) => posted.flatMap((d, key) => (d.date >= from && d.date <= to ? [key] : []));
  return {
    outside: async (_, from, to) => ({
      opening: posted.filter((d) => d.date < from).reduce((sum, d) => sum + (BALANCE_CREDIT_TYPES.includes(d.type) ? d.sum : -d.sum), 0),
      later: posted.filter((d) => d.date > to).length,
    }),
    postedKeys: async (_, from, to, limit) => within(from, to).slice(0, limit),
    postedByKeys: async (keys) => keys.map((key) => posted[key]),
  };
}

const collect = async (pieces: AsyncIterable<string>) => {
  let text = '';
  for await (const piece of pieces) text += piece;
  return text;
};

describe('walkStatement', () => {
  const posted: PostedDocument[] = [
    { type: 'sale', id: 1, number: '1', sum: 100_000, date: '2026-01-10' },
    { type: 'paymentin', id: 2, number: null, sum: 40_000, date: '2026-01-15' },
    { type: 'sale', id: 3, number: 'С-3, "копия"', sum: 50_050, date: '2026-02-10' },
    { type: 'purchase', id: 5, number: null, sum: 30_000, date: '2026-02-28' },
    { type: 'cashout', id: 6, number: '6', sum: 1_000, date: '2026-03-01' },
  ];

  test('opening from the documents before the period, each document in it as debit or credit with the balance after it, closing', async () => {
    const statement = await wholeStatement(await walkStatement(readsOf(posted), 7, '2026-02-01', '2026-02-28'));
    expect(statement).toEqual({
      dateFrom: '2026-02-01',
      dateTo: '2026-02-28',
      opening: -600,
      lines: [
        { date: '2026-02-10', type: 'sale', id: 3, number: 'С-3, "копия"', debit: 500.5, credit: null, balance: -1100.5 },
        { date: '2026-02-28', type: 'purchase', id: 5, number: null, debit: null, credit: 300, balance: -800.5 },
      ],
      debit: 500.5,
      credit: 300,
      closing: -800.5,
    });
    expect(await collect(statementCsv(await walkStatement(readsOf(posted), 7, '2026-02-01', '2026-02-28'), API_CSV))).toBe(
      [
        'date,document,id,number,debit,credit,balance',
        '2026-02-01,opening balance,,,,,-600.00',
        '2026-02-10,sale,3,"С-3, ""копия""",500.50,,-1100.50',
        '2026-02-28,purchase,5,,,300.00,-800.50',
        '2026-02-28,closing balance,,,500.50,300.00,-800.50',
        '',
      ].join('\r\n'),
    );
  });

  test('more documents than a page: every one once, in order, the balance carried across pages', async () => {
    const many: PostedDocument[] = Array.from({ length: 4_500 }, (_, i) => ({ type: i % 3 === 0 ? 'paymentin' : 'sale', id: i + 1, number: null, sum: 100 + i, date: '2026-05-01' }));
    const statement = await wholeStatement(await walkStatement(readsOf(many), 7, '2026-05-01', '2026-05-31'));
    expect(statement.lines.map((l) => l.id)).toEqual(many.map((d) => d.id));
    const expected = many.reduce((sum, d) => sum + (d.type === 'paymentin' ? d.sum : -d.sum), 0) / 100;
    expect([statement.lines.at(-1)!.balance, statement.closing]).toEqual([expected, expected]);
  });
});

describe('GET /api/audit/statement', () => {
  async function statementService() {
    const service = await testService();
    const { key } = await service.tb.keys.create({ name: 'auditor', scope: 'audit' });
    const auditor = new ApiClient(service.app, key);
    const on = (date: string) => ({ date });
    const imported = await importRecords(service.tb, [
      line('contractor', romashka),
      line('product', { id: 1, name: 'Стол', sku: 'T1', categoryId: 0 }),
      line('customerorder', { id: 1, date: '2026-01-05', status: 1, contractor: { id: 7 }, products: [{ pr_id: 1, pr_name: 'Стол', pr_count: 1, pr_price: 999 }] }),
      sale(1, 1, 1000, on('2026-01-10')),
      money('paymentin', 2, 1, 400, [{ type: 'sale', id: 1 }], on('2026-01-15')),
      sale(3, 1, 500, { ...on('2026-02-10'), number: 'С-3' }),
      money('cashin', 4, 0, 100, [], on('2026-02-20')),
      line('purchase', { id: 5, date: '2026-03-01', status: 1, contractor: { id: 7 }, products: [{ pr_id: 1, pr_name: 'Стол', pr_count: 1, pr_price: 300 }] }),
    ]);
    expect(imported.failures).toEqual([]);
    return { ...service, auditor };
  }
  const balanceOf = async (api: ApiClient) => (await api.post('/api/contractor', { id: 7 })).body.data.balance;

  test('a period: opening, the posted documents that moved the balance, closing; to today the closing is the contractor’s balance', async () => {
    const { api, auditor } = await statementService();
    const february = await auditor.get('/api/audit/statement?contractor=7&dateFrom=2026-02-01&dateTo=2026-02-28');
    expect(february.status).toBe(200);
    expect(february.body.data).toEqual({
      contractor: { id: 7, name: 'ООО Ромашка' },
      company: null,
      dateFrom: '2026-02-01',
      dateTo: '2026-02-28',
      opening: -600,
      lines: [{ date: '2026-02-10', type: 'sale', id: 3, number: 'С-3', debit: 500, credit: null, balance: -1100 }],
      debit: 500,
      credit: 0,
      closing: -1100,
    });
    const all = await auditor.get('/api/audit/statement?contractor=7&dateFrom=2026-01-01&dateTo=2099-12-31');
    expect(all.body.data.lines.map((l: { type: string; id: number }) => `${l.type}-${l.id}`)).toEqual(['sale-1', 'paymentin-2', 'sale-3', 'purchase-5']);
    expect(all.body.data.closing).toBe(await balanceOf(api));
    const csv = await auditor.app.request('/api/audit/statement?contractor=7&dateFrom=2026-02-01&dateTo=2026-02-28&format=csv', { headers: { Authorization: `Bearer ${auditor.key}` } });
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="statement-7-2026-02-01-2026-02-28.csv"');
    expect((await csv.text()).split('\r\n')[1]).toBe('2026-02-01,opening balance,,,,,-600.00');
  });

  test('a revision or an un-posting moves the statement as if history had been that way', async () => {
    const { api, tb, auditor } = await statementService();
    const revised = await importRecords(tb, [sale(1, 0, 1000, { date: '2026-01-10' }), money('paymentin', 2, 1, 450, [{ type: 'sale', id: 1 }], { date: '2026-01-15' })]);
    expect(revised.failures).toEqual([]);
    const february = (await auditor.get('/api/audit/statement?contractor=7&dateFrom=2026-02-01&dateTo=2026-02-28')).body.data;
    // The sale of 1,000 no longer counts; the payment is 450.
    expect([february.opening, february.closing]).toEqual([450, -50]);
    expect((await auditor.get('/api/audit/statement?contractor=7&dateFrom=2026-01-01&dateTo=2099-12-31')).body.data.closing).toBe(await balanceOf(api));
  });

  test('refusals by name: an api key, a bad or reversed period, an unknown contractor', async () => {
    const { api, auditor } = await statementService();
    const cases = [
      [api, 'contractor=7&dateFrom=2026-01-01&dateTo=2026-12-31', 401, 'ERROR_USER_ACCESS'],
      [auditor, 'contractor=7&dateFrom=2026-13-01&dateTo=2026-12-31', 400, 'ERROR_DATEFROM'],
      [auditor, 'contractor=7&dateFrom=2026-02-01&dateTo=2026-01-31', 400, 'ERROR_DATETO'],
      [auditor, 'contractor=x&dateFrom=2026-01-01&dateTo=2026-12-31', 400, 'ERROR_CONTRACTOR'],
      [auditor, 'contractor=8&dateFrom=2026-01-01&dateTo=2026-12-31', 404, 'ERROR_CONTRACTOR'],
      [auditor, 'contractor=7&dateFrom=2026-01-01&dateTo=2026-12-31&format=xml', 400, 'ERROR_FORMAT'],
    ] as const;
    for (const [client, query, status, code] of cases) {
      const res = await client.get(`/api/audit/statement?${query}`);
      expect([query, res.status, res.body.errors[0].code]).toEqual([query, status, code]);
    }
  });
});
