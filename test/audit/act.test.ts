import { afterEach, describe, expect, test, vi } from 'vitest';
import { statementLimit } from '../../src/audit/statement.ts';
import { runCliHere as runCli } from '../cli-in-process.ts';
import { importRecords, line, money, romashka, sale } from '../documents-fixtures.ts';
import { testService } from '../helpers.ts';
import { Browser } from '../workbench-client.ts';

// The command line runs in this process; a test here sets details, imports and reads several files.
vi.setConfig({ testTimeout: 120_000 });

const petrov = { ...romashka, id: 8, type: 'ИП', name: 'ИП Петров П. П.', inn: '770112345678', kpp: null, phone1: '+7 916 000-00-08' };
const sidorov = { ...romashka, id: 9, type: 'ФЛ', name: 'Сидоров Сергей', inn: null, kpp: null, phone1: '+7 916 000-00-09' };

/**
 * Contractor 7 (ЮЛ) with a sale of 500 and a payment of 300 for it, both on 02.11.2026 (the payment's number and
 * type both sort before the sale's), and a sale of 100 on 10.11.2026; an ИП and an ФЛ with a sale each. The
 * documents carry a company of their own, which the act never names.
 */
async function actService() {
  const service = await testService();
  const { key: auditKey } = await service.tb.keys.create({ name: 'auditor', scope: 'audit' });
  const foreign = { id: 1, name: 'ООО Чужая', inn: '7700000000', kpp: '770001001' };
  const imported = await importRecords(service.tb, [
    line('contractor', romashka),
    line('contractor', petrov),
    line('contractor', sidorov),
    line('product', { id: 1, name: 'Стол', sku: 'T1', categoryId: 0 }),
    sale(9, 1, 500, { number: 'О-9', company: foreign }),
    money('paymentin', 1, 1, 300, [{ type: 'sale', id: 9 }], { number: 'А-1', date: '2026-11-02' }),
    sale(10, 1, 100, { number: 'О-10', date: '2026-11-10' }),
    sale(11, 1, 50, { number: 'О-11', contractor: { id: 8 } }),
    sale(12, 1, 70, { number: 'О-12', contractor: { id: 9 } }),
  ]);
  expect(imported.failures).toEqual([]);
  const auditor = new Browser(service.app, { 'Accept-Language': 'ru' });
  expect((await auditor.signIn(auditKey)).status).toBe(303);
  const api = (url: string) => service.app.request(url, { headers: { Authorization: `Bearer ${auditKey}` } });
  return { ...service, auditor, api };
}

const setCompany = (file: string, ...args: string[]) => runCli(file, ['company', 'set', ...args]);
const SEVER = ['--name', 'ООО «Север»', '--inn', '7701987654', '--kpp', '770101001', '--director', 'Орлов А. В.', '--accountant', 'Белова Е. Н.'];

/** The rows of a workbook's first sheet, each a list of its cells' values from column A. */
async function sheetRows(response: Response): Promise<unknown[][]> {
  expect(response.status).toBe(200);
  const { default: ExcelJS } = await import('exceljs');
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(Buffer.from(await response.arrayBuffer()) as never);
  return (book.worksheets[0].getSheetValues() as unknown[][]).filter(Boolean).map((row) => row.slice(1));
}

const tableCells = (html: string, label: string) => {
  const row = new RegExp(`<th scope="row">${label}</th>((?:<td[^>]*>[^<]*</td>){2})`).exec(html);
  return [...(row?.[1] ?? '').matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((m) => m[1]);
};

afterEach(() => {
  statementLimit.lines = 100_000;
});

describe("the company's details as history", () => {
  test('company set records who set them and from when; the act, its files and the document page name the company as of their date, never from a document', async () => {
    const { file, auditor, api } = await actService();
    const before = await auditor.get('/audit/statement?contractor=7&dateFrom=2026-11-01&dateTo=2026-11-30');
    expect(before.text).toContain('между (реквизиты организации не заданы) и ООО Ромашка');
    expect(before.text).toContain('Реквизиты организации на 30.11.2026 не заданы — задайте их: tradebook company set');
    expect(before.text).not.toContain('Чужая');

    expect((await setCompany(file, ...SEVER, '--from', '2026-01-01')).status).toBe(0);
    const renamed = await setCompany(file, '--name', 'ООО «Север-2»', '--inn', '7701987654', '--kpp', '770201001', '--from', '2026-11-05');
    expect(renamed.stdout).toBe('company details from 2026-11-05: ООО «Север-2», ИНН 7701987654, КПП 770201001\n');

    const early = await auditor.get('/audit/statement?contractor=7&dateFrom=2026-11-01&dateTo=2026-11-04');
    expect(early.text).toContain('между ООО «Север», ИНН 7701987654, КПП 770101001 и ООО Ромашка');
    expect(early.text).toContain('Руководитель ____________ / Орлов А. В.');
    expect(early.text).toContain('Главный бухгалтер ____________ / Белова Е. Н.');
    const late = await auditor.get('/audit/statement?contractor=7&dateFrom=2026-11-01&dateTo=2026-11-30');
    expect(late.text).toContain('между ООО «Север-2», ИНН 7701987654, КПП 770201001 и ООО Ромашка');
    expect(late.text).not.toContain('не заданы');
    for (const text of [early.text, late.text]) expect(text).not.toContain('Чужая');

    const query = 'contractor=7&dateFrom=2026-11-01&dateTo=2026-11-30';
    for (const rows of [await sheetRows(await api(`/api/audit/statement?${query}&format=xlsx`)), await sheetRows(await auditor.app.request(`/audit/statement.xlsx?${query}`, { headers: { Cookie: auditor.cookie, 'Accept-Language': 'ru' } }))]) {
      expect(rows[2][0]).toBe('между ООО «Север-2», ИНН 7701987654, КПП 770201001 и ООО Ромашка, ИНН 7701234567, КПП 770101001');
    }
    expect((await auditor.get(`/audit/statement.csv?${query}`)).text).toContain('между ООО «Север-2», ИНН 7701987654, КПП 770201001 и ООО Ромашка');
    const json = (await (await api(`/api/audit/statement?${query}`)).json()) as { data: { company: unknown } };
    expect(json.data.company).toEqual({ from: '2026-11-05', name: 'ООО «Север-2»', inn: '7701987654', kpp: '770201001', address: null, director: null, accountant: null });

    // The document page: the company's details on the document's date, whatever the document carries.
    const document = await auditor.get('/audit/document/sale/9');
    expect(document.text).toContain('Реквизиты организации на дату документа, 02.11.2026: ООО «Север», ИНН 7701987654, КПП 770101001');

    // Who set them and when: the log, the record's history in the workbench and on the command line.
    const record = await auditor.get('/audit/record?stream=company&at=2026-12-01');
    expect(record.status).toBe(200);
    expect(record.text).toContain('ООО «Север-2»');
    const log = await auditor.get('/audit/log?stream=company');
    expect(log.text.match(/командная строка, пользователь [^<]+/g)).toHaveLength(2);
    const cli = await runCli(file, ['history', 'company']);
    expect(cli.stdout.split('\n').filter((l) => l.includes('CompanyDetailsSet  command line, user '))).toHaveLength(2);
    expect((await runCli(file, ['company', 'show', '--on', '2026-11-04'])).stdout).toBe(
      'ООО «Север», ИНН 7701987654, КПП 770101001, директор Орлов А. В., главный бухгалтер Белова Е. Н. (from 2026-01-01)\n',
    );
    expect((await runCli(file, ['verify'])).status).toBe(0);
    expect((await runCli(`${file}.missing`, ['company', 'show'])).status).toBe(2);
  });

  test('company set refuses what is not a company’s details in one line each, and records nothing', async () => {
    const { file, tb } = await actService();
    const events = await tb.audit.lastSeq();
    for (const [args, said] of [
      [['--name', 'ООО «Север»', '--inn', '77019876'], '--inn: must be 10 digits (an organisation) or 12 (an individual entrepreneur)'],
      [['--name', 'ООО «Север»', '--inn', '7701987654'], '--kpp: an organisation (a 10-digit INN) has a KPP: give it'],
      [['--name', 'ИП Орлов', '--inn', '770198765432', '--kpp', '770101001'], '--kpp: an individual entrepreneur (a 12-digit INN) has no KPP'],
      [['--name', ' ', '--inn', '7701987654', '--kpp', '770101001'], '--name: must not be empty'],
      [['--name', 'ООО «Север»', '--inn', '7701987654', '--kpp', '770101001', '--from', '2026-02-30'], '--from: must be a real date YYYY-MM-DD'],
    ] as const) {
      const run = await setCompany(file, ...args);
      expect([run.status, run.stderr]).toEqual([2, `tradebook: ${said}\n`]);
    }
    expect(await tb.audit.lastSeq()).toBe(events);
  });
});

describe('the act right in every case', () => {
  test('a zero opening and closing balance is 0,00 on both sides: the page, the XLSX, the workbench CSV and csv-ru', async () => {
    const { file, auditor, api } = await actService();
    expect((await setCompany(file, ...SEVER, '--from', '2026-01-01')).status).toBe(0);
    // Nothing before November; the ФЛ's sale of 70 in November, nothing after it: opening zero, and a period
    // of nothing (December) has both zero.
    const query = 'contractor=9&dateFrom=2026-12-01&dateTo=2026-12-31';
    const page = await auditor.get(`/audit/statement?${query}`);
    expect(tableCells(page.text, 'Сальдо начальное')).toEqual(['70,00\u00a0₽', '']);
    const november = await auditor.get('/audit/statement?contractor=9&dateFrom=2026-11-01&dateTo=2026-11-30');
    expect(tableCells(november.text, 'Сальдо начальное')).toEqual(['0,00\u00a0₽', '0,00\u00a0₽']);
    const settled = await auditor.get('/audit/statement?contractor=9&dateFrom=2025-01-01&dateTo=2025-12-31');
    expect(tableCells(settled.text, 'Сальдо начальное')).toEqual(['0,00\u00a0₽', '0,00\u00a0₽']);
    expect(tableCells(settled.text, 'Сальдо конечное')).toEqual(['0,00\u00a0₽', '0,00\u00a0₽']);

    const zeroQuery = 'contractor=9&dateFrom=2026-11-01&dateTo=2026-11-30';
    const rows = await sheetRows(await api(`/api/audit/statement?${zeroQuery}&format=xlsx`));
    expect(rows.find((row) => row[1] === 'Сальдо начальное')!.slice(2, 4)).toEqual([0, 0]);
    const csv = (await auditor.get(`/audit/statement.csv?${zeroQuery}`)).text;
    expect(csv).toContain('\r\n;Сальдо начальное;0,00;0,00;;;;\r\n');
    const ruCsv = await (await api(`/api/audit/statement?${zeroQuery}&format=csv-ru`)).text();
    expect(ruCsv.split('\r\n')[1]).toBe('01.11.2026;Сальдо начальное;;;;;0,00;0,00');
  });

  test('one sign convention: a debt of the contractor is a debit balance on the page, in the sentence under it, the XLSX and both CSVs; the API’s csv keeps its signed balance', async () => {
    const { file, auditor, api } = await actService();
    expect((await setCompany(file, ...SEVER, '--from', '2026-01-01')).status).toBe(0);
    // Contractor 7 owes 500 − 300 + 100 = 300 at the end of November, and nothing is dated later.
    const query = 'contractor=7&dateFrom=2026-11-01&dateTo=2099-12-31';
    const page = await auditor.get(`/audit/statement?${query}`);
    expect(tableCells(page.text, 'Сальдо конечное')).toEqual(['300,00\u00a0₽', '']);
    expect(page.text).toContain('конечное сальдо равно текущему сальдо контрагента, 300,00\u00a0₽ по дебету (долг контрагента перед организацией)');
    expect(page.text).toContain('Сальдо по дебету — долг контрагента перед организацией, по кредиту — долг организации перед контрагентом');
    expect(page.text).not.toMatch(/-300,00/);
    const rows = await sheetRows(await api(`/api/audit/statement?${query}&format=xlsx`));
    const closing = rows.find((row) => row[1] === 'Сальдо конечное')!;
    expect([closing[2], closing[3]]).toEqual([300, undefined]);
    expect((await auditor.get(`/audit/statement.csv?${query}`)).text).toContain('\r\n;Сальдо конечное;300,00;;;;;\r\n');
    const ruBytes = Buffer.from(await (await api(`/api/audit/statement?${query}&format=csv-ru`)).arrayBuffer());
    expect([...ruBytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const ruCsv = ruBytes.subarray(3).toString('utf8').split('\r\n');
    expect(ruCsv[0]).toBe('Дата;Документ;Id;Номер;Дебет;Кредит;Сальдо по дебету;Сальдо по кредиту');
    expect(ruCsv.at(-2)).toBe('31.12.2099;Сальдо конечное;;;600,00;300,00;300,00;');
    const apiCsv = (await (await api(`/api/audit/statement?${query}&format=csv`)).text()).split('\r\n');
    expect(apiCsv.at(-2)).toBe('2099-12-31,closing balance,,,600.00,300.00,-300.00');
  });

  test('the documents of one day in the stated order: documents of goods before payments, then by number', async () => {
    const { auditor, api } = await actService();
    const query = 'contractor=7&dateFrom=2026-11-01&dateTo=2026-11-30';
    const json = (await (await api(`/api/audit/statement?${query}`)).json()) as { data: { lines: { type: string; id: number; balance: number }[] } };
    expect(json.data.lines.map((l) => `${l.type}-${l.id}`)).toEqual(['sale-9', 'paymentin-1', 'sale-10']);
    expect(json.data.lines.map((l) => l.balance)).toEqual([-500, -200, -300]);
    const page = await auditor.get(`/audit/statement?${query}`);
    expect([...page.text.matchAll(/<tr data-document="([^"]+)"/g)].map((m) => m[1])).toEqual(['sale-9', 'paymentin-1', 'sale-10']);
    const rows = await sheetRows(await api(`/api/audit/statement?${query}&format=xlsx`));
    expect(rows.filter((row) => row[0] instanceof Date).map((row) => row[1])).toEqual(['Отгрузка № О-9 от 02.11.2026', 'Входящий платёж № А-1 от 02.11.2026', 'Отгрузка № О-10 от 10.11.2026']);
    expect(page.text).toContain('в пределах дня — сначала документы на товары, затем платежи, по номеру');
  });

  test('each side as it signs: an organisation through its representative, an individual entrepreneur and a person themselves', async () => {
    const { file, auditor } = await actService();
    expect((await setCompany(file, ...SEVER, '--from', '2026-01-01')).status).toBe(0);
    const act = async (contractor: number) => (await auditor.get(`/audit/statement?contractor=${contractor}&dateFrom=2026-11-01&dateTo=2026-11-30`)).text;
    const legal = await act(7);
    expect(legal).toContain('Мы, нижеподписавшиеся, представитель ООО «Север», с одной стороны, и представитель ООО Ромашка, с другой стороны');
    expect(legal).toContain('<p>От ООО Ромашка</p>');
    const entrepreneur = await act(8);
    expect(entrepreneur).toContain('с одной стороны, и индивидуальный предприниматель Петров П. П., с другой стороны');
    expect(entrepreneur).toContain('<p>Индивидуальный предприниматель Петров П. П.</p>');
    expect(entrepreneur).not.toContain('представитель ИП');
    const person = await act(9);
    expect(person).toContain('с одной стороны, и Сидоров Сергей, с другой стороны');
    expect(person).toContain('<p>Сидоров Сергей</p>');
    expect(person).not.toMatch(/представитель Сидоров|От Сидоров/);

    // A company that is itself an individual entrepreneur signs itself too, with no director or accountant lines.
    expect((await setCompany(file, '--name', 'ИП Орлов А. В.', '--inn', '770198765432', '--director', 'Орлов А. В.', '--from', '2026-11-01')).status).toBe(0);
    const own = await act(7);
    expect(own).toContain('Мы, нижеподписавшиеся, индивидуальный предприниматель Орлов А. В., с одной стороны');
    expect(own).toContain('<p>Индивидуальный предприниматель Орлов А. В.</p>');
    expect(own).not.toContain('Руководитель');
  });

  test('more documents than a statement holds: a clear error in every format, before anything is sent', async () => {
    const { auditor, api } = await actService();
    statementLimit.lines = 2;
    const query = 'contractor=7&dateFrom=2026-11-01&dateTo=2026-11-30';
    for (const format of ['json', 'csv', 'csv-ru', 'xlsx']) {
      const res = await api(`/api/audit/statement?${query}&format=${format}`);
      expect([format, res.status, res.headers.get('content-type')]).toEqual([format, 400, 'application/json; charset=utf-8']);
      expect(await res.json()).toEqual({
        errors: [{ code: 'ERROR_STATEMENT_TOO_LARGE', message: 'the period holds more than 2 posted documents, the most a statement holds: narrow the period (dateFrom, dateTo)' }],
      });
    }
    for (const path of ['/audit/statement', '/audit/statement.csv', '/audit/statement.xlsx']) {
      const res = await auditor.get(`${path}?${query}`);
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.text).toContain('За период больше 2 проведённых документов — больше, чем вмещает акт: сократите период.');
    }
    expect((await api(`/api/audit/statement?contractor=7&dateFrom=2026-11-01&dateTo=2026-11-05`)).status).toBe(200);
    // The OpenAPI document names the refusal, the formats and the files.
    const operation = ((await (await api('/api/openapi.json')).json()) as { paths: Record<string, { get: Record<string, any> }> }).paths['/api/audit/statement'].get;
    expect(operation['x-error-codes']).toContain('ERROR_STATEMENT_TOO_LARGE');
    expect(operation.parameters.find((p: { name: string }) => p.name === 'format').schema.enum).toEqual(['json', 'csv', 'csv-ru', 'xlsx']);
    expect(Object.keys(operation.responses['200'].content)).toEqual(['application/json', 'text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet']);
  });

  test('a name holding characters XML forbids still gives a workbook Excel opens: the act drops them', async () => {
    const { tb, api } = await actService();
    const imported = await importRecords(tb, [line('contractor', { ...romashka, id: 20, name: 'API\ufffeName\uffff\u0001', phone1: '+7 916 000-00-20' }), sale(30, 1, 10, { number: 'X\u0002-30', contractor: { id: 20 } })]);
    expect(imported.failures).toEqual([]);
    const res = await api('/api/audit/statement?contractor=20&dateFrom=2026-11-01&dateTo=2026-11-30&format=xlsx');
    const bytes = Buffer.from(await res.clone().arrayBuffer());
    const rows = await sheetRows(res);
    expect(rows[2][0]).toBe('между (реквизиты организации не заданы) и APIName, ИНН 7701234567, КПП 770101001');
    expect(rows.find((row) => row[0] instanceof Date)![1]).toBe('Отгрузка № X-30 от 02.11.2026');
    // Every part of the file is well-formed XML: no character XML 1.0 forbids, in any part.
    const { default: JSZip } = await import('jszip');
    const zip = await JSZip.loadAsync(bytes);
    for (const name of Object.keys(zip.files)) {
      const xml = await zip.files[name].async('string');
      expect([name, /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/.test(xml)]).toEqual([name, false]);
    }
  });
});
