import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { describe, expect, test, vi } from 'vitest';
import type { z } from 'zod';
import { readResponses, writeResults } from '../../src/http/responses.ts';
import { changePage } from '../../src/feed/schemas.ts';
import { ApiClient } from '../helpers.ts';
import { TEST_ENGINE, engineService as testService } from '../engine-service.ts';
import { importRecords, line, money, romashka, sale } from '../documents-fixtures.ts';

vi.setConfig({ testTimeout: 120_000 });

const ROOT = path.resolve(import.meta.dirname, '../..');

async function servedDocument() {
  const { app } = await testService();
  return (await app.request('/api/openapi.json')).json();
}

/** The document is the same whatever the engine: what checks it alone runs on SQLite only. */
const documentOnly = TEST_ENGINE === 'sqlite';

test.runIf(documentOnly)("Redocly's recommended rules pass on the served document: no error, no warning", async () => {
  const file = path.join(fs.mkdtempSync(path.join(ROOT, 'node_modules', '.cache-openapi-')), 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(await servedDocument()));
  const run = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', '--extends=recommended', '--format=stylish', file], {
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    timeout: 60_000,
  });
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  expect(run.status, run.stdout + run.stderr).toBe(0);
  expect(run.stdout + run.stderr).toContain('Woohoo! Your API description is valid.');
  expect(run.stdout + run.stderr).not.toMatch(/You have \d+ warnings?|Validation failed/);
});

describe('the response schemas are the bytes served', () => {
  /** Parsing keeps only the keys a schema names: an answer equal to its parse has no field the document misses. */
  const conforms = (schema: z.ZodType, body: unknown) => expect(schema.parse(body)).toEqual(body);

  test('every read and write answer parses with its schema, nothing left over', async () => {
    const { tb, api, app } = await testService();
    const auditor = new ApiClient(app, (await tb.keys.create({ name: 'auditor', scope: 'audit' })).key);
    const writes: [string, string, unknown[], z.ZodType][] = [
      ['/api/add-product-category', 'category', [{ name: 'Мебель' }, { name: 'Столы', parent: 1 }], writeResults.named],
      ['/api/add-product-brand', 'brand', [{ name: 'Дуб', logo: 'dub.png' }], writeResults.named],
      ['/api/add-product', 'products', [{ name: 'Стол', sku: 'T1', categoryId: 2, brandId: 1, salePrice: 1000.5, barcodes: ['460'], additionalPrices: [{ name: 'опт', price: 900 }] }], writeResults.product],
      ['/api/update-product-prices', 'data', [{ sku: 'T1', minPrice: 800 }], writeResults.prices],
      ['/api/add-contractor', 'contractors', [{ type: 'ФЛ', name: 'Петров', contactPerson: 'Петров П.', phone1: '+7 916 000-00-01', status: 'VIP' }], writeResults.named],
    ];
    for (const [url, wrapper, records, schema] of writes) {
      const res = await api.write(url, wrapper, records);
      expect([url, res.status]).toEqual([url, 200]);
      conforms(schema, res.body);
    }
    const imported = await importRecords(tb, [line('contractor', romashka), sale(187, 1, 1000), money('paymentin', 5, 1, 400, [{ type: 'sale', id: 187 }])]);
    expect(imported.failures).toEqual([]);
    const reads: [ApiClient, string, z.ZodType][] = [
      [api, '/api/products?limit=5', readResponses.products],
      [api, '/api/product?id=1', readResponses.product],
      [api, '/api/product-brands', readResponses.brands],
      [api, '/api/product-categories', readResponses.categories],
      [api, '/api/contractors', readResponses.contractors],
      [api, '/api/sales', readResponses.documents],
      [api, '/api/paymentins', readResponses.documents],
      [auditor, '/api/events', readResponses.events],
      [api, '/api/changes', changePage],
      [auditor, '/api/changes?types=document', changePage],
      [auditor, '/api/history?stream=product-1', readResponses.history],
      [auditor, '/api/audit/document?type=sale&id=187', readResponses.document],
      [auditor, '/api/audit/statement?contractor=7&dateFrom=2026-01-01&dateTo=2026-12-31', readResponses.statement],
    ];
    for (const [client, url, schema] of reads) {
      const res = await client.get(url);
      expect([url, res.status]).toEqual([url, 200]);
      conforms(schema, res.body);
    }
    const found = await api.post('/api/contractor', { id: 7 });
    conforms(readResponses.contractor, found.body);
  });
});

describe.runIf(documentOnly)('a client generated from the served document', () => {
  /** A program using the generated client: a page with a typed limit, a two-step write, a typed error. */
  const program = (wrong: string) => `
import createClient from 'openapi-fetch';
import type { paths } from './api.ts';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:3000', headers: { Authorization: 'Bearer key' } });

export async function use(): Promise<void> {
  const list = await client.GET('/api/products', { params: { query: { limit: 5, offset: 0 } } });
  const count: number = list.data ? list.data.meta.allCount : 0;
  const firstName: string | undefined = list.data?.data[0]?.name;
  const token = await client.GET('/api/add-product-brand');
  const accessToken: string = token.data ? token.data.data.access_token : '';
  const added = await client.POST('/api/add-product-brand', {
    params: { header: { 'X-Access-Token': accessToken } },
    body: { brand: [{ name: 'Новый' }] },
  });
  const newId: number | undefined = added.data?.data[0]?.id;
  const code = added.error?.errors[0]?.code;
  const named: 'ERROR_BRAND_NAME' | undefined = code === 'ERROR_BRAND_NAME' ? code : undefined;
  ${wrong}
  console.log(count, firstName, newId, named);
}
`;

  /**
   * The diagnostics of type-checking each of `sources` against the generated types, as text: one program of them
   * all (the compiler reads its libraries once), each source a file of its own.
   */
  async function typeCheck(sources: string[]): Promise<string[][]> {
    const dir = fs.mkdtempSync(path.join(ROOT, 'node_modules', '.cache-client-'));
    try {
      fs.writeFileSync(path.join(dir, 'api.ts'), astToString(await openapiTS(await servedDocument())));
      const files = sources.map((source, i) => {
        const file = path.join(dir, `program-${i}.ts`);
        fs.writeFileSync(file, source);
        return file;
      });
      const options: ts.CompilerOptions = {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        allowImportingTsExtensions: true,
        skipLibCheck: true,
        types: [],
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      };
      const tsProgram = ts.createProgram(files, options);
      return files.map((file) => ts.getPreEmitDiagnostics(tsProgram, tsProgram.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  test('lists products, writes in two steps and reads a typed error: it type-checks', async () => {
    expect(await typeCheck([program('')])).toEqual([[]]);
  });

  test('a wrong field or type fails the check', async () => {
    const wrongs = [
      "const meta: string = list.data ? list.data.meta.allCount : '';",
      "await client.GET('/api/products', { params: { query: { limit: 'five' } } });",
      'const missing = list.data?.data[0]?.notAField;',
      "const badCode: 'ERROR_NOPE' | undefined = code === 'ERROR_NOPE' ? code : undefined;",
    ];
    const diagnostics = await typeCheck(wrongs.map(program));
    wrongs.forEach((wrong, i) => expect([wrong, diagnostics[i].length]).not.toEqual([wrong, 0]));
  });
});
