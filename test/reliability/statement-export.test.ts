import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { importRecords, line } from '../documents-fixtures.ts';
import { openSqliteCompany, tempDir } from '../helpers.ts';
import { type ServerProcess, startServer } from '../server-process.ts';
import { signInOver } from '../workbench-client.ts';

vi.setConfig({ testTimeout: 600_000, hookTimeout: 600_000 });

const KEY = 'tb_statement_export_test_key_0123456';
const DOCUMENTS = 30_000;
const QUERY = `contractor=9001&dateFrom=2020-01-01&dateTo=2026-12-31`;
const MB = 1024 * 1024;
const vmRss = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Contractor 9001 with 30,000 posted sales and payments over six years; contractor 9002 with one sale. */
function* documents() {
  yield line('contractor', { id: 9001, type: 'ЮЛ', name: 'ООО Магистраль', contactPerson: 'Иванов', phone1: '+7 916 000-90-01', inn: '7701000001', kpp: '770101001' });
  yield line('contractor', { id: 9002, type: 'ЮЛ', name: 'ООО Малая', contactPerson: 'Петров', phone1: '+7 916 000-90-02' });
  yield line('product', { id: 1, name: 'Стол', sku: 'T1', categoryId: 0 });
  const day = (i: number) => new Date(Date.UTC(2020, 0, 1) + Math.floor(i / 14) * 86_400_000).toISOString().slice(0, 10);
  for (let i = 0; i < DOCUMENTS; i++) {
    const date = day(i);
    if (i % 2 === 0) yield line('sale', { id: i + 1, number: `О-${i + 1}`, date, status: 1, contractor: { id: 9001 }, products: [{ pr_id: 1, pr_name: 'Стол', pr_count: 1, pr_price: 100 + (i % 97) }] });
    else yield line('paymentin', { id: i + 1, number: `П-${i + 1}`, date, status: 1, contractor: { id: 9001 }, sum: 50 });
  }
  yield line('sale', { id: DOCUMENTS + 1, date: '2026-01-10', status: 1, contractor: { id: 9002 }, products: [{ pr_id: 1, pr_count: 1, pr_price: 10 }] });
}

/**
 * Runs `download` while sampling the server's RSS every 20 ms and asking `/healthz` one request after another:
 * the largest RSS seen, each probe's time, and the download's bytes.
 */
async function whileDownloading(server: ServerProcess, download: () => Promise<Buffer>) {
  const pid = server.child.pid!;
  let done = false;
  let peak = vmRss(pid);
  const rss = setInterval(() => (peak = Math.max(peak, vmRss(pid))), 20);
  const probes: number[] = [];
  const probing = (async () => {
    while (!done) {
      const started = performance.now();
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      probes.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  const bytes = await download().finally(() => (done = true));
  await probing;
  clearInterval(rss);
  return { peak: Math.max(peak, vmRss(pid)), probes, bytes };
}

let server: ServerProcess;
let auditKey: string;
let cookie: string;

beforeAll(async () => {
  const file = path.join(tempDir(), 'export.db');
  const tb = await openSqliteCompany(file);
  try {
    // In groups of 2,000 lines: paced groups would stay at 200 here, the type changing every line.
    const imported = await importRecords(tb, [...documents()], { linesPerGroup: 2_000 });
    expect(imported.failures).toEqual([]);
    auditKey = (await tb.keys.create({ name: 'auditor', scope: 'audit' })).key;
  } finally {
    await tb.close();
  }
  server = await startServer(file, KEY);
  cookie = (await signInOver(server.url, auditKey)).cookie;
});
afterAll(() => server?.stop());

const apiGet = async (query: string) => {
  const res = await fetch(`${server.url}/api/audit/statement?${query}`, { headers: { Authorization: `Bearer ${auditKey}` } });
  expect(res.status, query).toBe(200);
  return Buffer.from(await res.arrayBuffer());
};
const workbenchGet = async (pathAndQuery: string) => {
  const res = await fetch(`${server.url}${pathAndQuery}`, { headers: { Cookie: cookie } });
  expect(res.status, pathAndQuery).toBe(200);
  return Buffer.from(await res.arrayBuffer());
};

test.each([
  ['the API’s XLSX', () => apiGet(`${QUERY}&format=xlsx`), 'xlsx'],
  ['the workbench’s XLSX', () => workbenchGet(`/audit/statement.xlsx?${QUERY}`), 'xlsx'],
  ['the API’s csv-ru', () => apiGet(`${QUERY}&format=csv-ru`), 'csv'],
  ['the workbench’s CSV', () => workbenchGet(`/audit/statement.csv?${QUERY}`), 'csv'],
] as const)('%s of a contractor with 30,000 documents: the server grows less than 64 MB and /healthz answers meanwhile', async (_name, download, kind) => {
  // Each kind of file once, small, so that what loading its code costs is not counted as the export's.
  await apiGet('contractor=9002&dateFrom=2020-01-01&dateTo=2026-12-31&format=xlsx');
  await apiGet('contractor=9002&dateFrom=2020-01-01&dateTo=2026-12-31&format=csv-ru');
  await workbenchGet('/audit/statement.csv?contractor=9002&dateFrom=2020-01-01&dateTo=2026-12-31');
  const baseline = vmRss(server.child.pid!);
  const { peak, probes, bytes } = await whileDownloading(server, download);
  const grown = (peak - baseline) / MB;
  expect(grown, `RSS ${(baseline / MB).toFixed(0)} → ${(peak / MB).toFixed(0)} MB`).toBeLessThan(64);
  // On a machine other processes load, one probe may wait for the CPU: the median says whether the server did.
  expect(median(probes), `/healthz probes (ms): ${probes.map((p) => p.toFixed(0)).join(' ')}`).toBeLessThan(100);
  expect(probes.length).toBeGreaterThan(3);

  if (kind === 'xlsx') {
    const { default: ExcelJS } = await import('exceljs');
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(bytes as never);
    const rows = (book.worksheets[0].getSheetValues() as unknown[][]).filter(Boolean);
    expect(rows.filter((row) => row[1] instanceof Date)).toHaveLength(DOCUMENTS);
  } else {
    const text = bytes.toString('utf8');
    // A document's row starts with its date; the balances' rows of the API's file too, by their names.
    expect(text.split('\r\n').filter((row) => /^\d\d\.\d\d\.\d{4};(?!Сальдо)/.test(row))).toHaveLength(DOCUMENTS);
  }
});
