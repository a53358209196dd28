import { expect, test } from 'vitest';
import { TOKEN_READ_FIRST_ABOVE_BYTES } from '../../src/http/write-endpoint.ts';
import { importRecords } from '../../src/use-cases/import.ts';
import { importRecords as importLines, line, money, romashka, sale, table } from '../documents-fixtures.ts';
import { type TestService, testService } from '../helpers.ts';
import { Browser } from '../workbench-client.ts';

/**
 * What a request costs the database, counted: batch-level writes read what a batch needs in a few queries and
 * write its events and read rows in a few statements, however many records it holds. Transaction control
 * (BEGIN, SAVEPOINT, RELEASE, ROLLBACK, COMMIT) is left out: it is the same for a batch of one or of a hundred.
 */
const TRANSACTION_CONTROL = /^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;

async function counted(): Promise<TestService & { during(request: () => Promise<unknown>): Promise<string[]> }> {
  let statements: string[] | undefined;
  const service = await testService({ trace: (sql) => statements?.push(sql) });
  return {
    ...service,
    async during(request) {
      statements = [];
      await request();
      const seen = statements.filter((sql) => !TRANSACTION_CONTROL.test(sql));
      statements = undefined;
      return seen;
    },
  };
}

/** Whether a statement inserts or updates rows of the products table. */
const writesProducts = (sql: string) => /\b(INSERT INTO|UPDATE)\s+"?products"?[\s(]/i.test(sql);

const contractor = (i: number) => ({ type: 'ФЛ', name: `Контрагент ${i}`, contactPerson: 'Иванов', phone1: `+7 916 000-${String(i).padStart(4, '0')}`, status: i % 3 === 0 ? 'VIP' : null });

test('a token GET runs at most 3 statements', async () => {
  const s = await counted();
  const statements = await s.during(async () => expect((await s.api.get('/api/add-contractor')).status).toBe(200));
  expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(3);
});

test('a POST of a small body reads its token once, under the write lock', async () => {
  const s = await counted();
  const token = await s.api.token('/api/add-contractor');
  const statements = await s.during(async () => expect((await s.api.post('/api/add-contractor', { contractors: [contractor(1)] }, token)).status).toBe(200));
  expect(statements.filter((sql) => /^\s*SELECT\b.*\bFROM access_tokens\b/is.test(sql)), statements.join('\n')).toHaveLength(1);
});

test('a POST of a large body not of the batch\'s shape reads its token once, before the body: a fresh token\'s body is answered 400', async () => {
  const s = await counted();
  const token = await s.api.token('/api/add-contractor');
  const body = { clients: 'x'.repeat(TOKEN_READ_FIRST_ABOVE_BYTES) };
  const statements = await s.during(async () => expect((await s.api.post('/api/add-contractor', body, token)).status).toBe(400));
  expect(statements.filter((sql) => /^\s*SELECT\b.*\bFROM access_tokens\b/is.test(sql)), statements.join('\n')).toHaveLength(1);
});

test('add-contractor of 100 records runs at most 40 statements', async () => {
  const s = await counted();
  await s.api.write('/api/add-contractor', 'contractors', [contractor(0)]);
  const token = await s.api.token('/api/add-contractor');
  const records = Array.from({ length: 100 }, (_, i) => contractor(i + 1));
  const statements = await s.during(async () => expect((await s.api.post('/api/add-contractor', { contractors: records }, token)).status).toBe(200));
  expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(40);
  expect((await s.api.get('/api/contractors?limit=1&offset=100')).body.data[0].name).toBe('Контрагент 100');
});

test('add-product of 10 new products writes their rows once, wide, and never rewrites them', async () => {
  const s = await counted();
  await s.api.write('/api/add-product-brand', 'brand', [{ name: 'Бренд' }]);
  await s.api.write('/api/add-product-category', 'category', [{ name: 'Группа' }]);
  const token = await s.api.token('/api/add-product');
  const products = Array.from({ length: 10 }, (_, i) => ({ name: `Товар ${i}`, sku: `S-${i}`, categoryId: 1, brandId: 1, salePrice: 10 + i }));
  const statements = await s.during(async () => expect((await s.api.post('/api/add-product', { products }, token)).status).toBe(200));
  const written = statements.filter(writesProducts);
  expect(written, statements.join('\n')).toHaveLength(1);
  expect(written[0]).toMatch(/^\s*INSERT/i);
  expect((await s.api.get('/api/products?limit=1&offset=9')).body.data[0]).toMatchObject({ sku: 'S-9', salePrice: 19, brand: { name: 'Бренд' } });
});

test('an import group of products whose ids come below the highest writes their rows once, wide, and never rewrites them', async () => {
  const s = await counted();
  const line = (n: number, id: number) => ({ line: n, value: { type: 'product', data: { id, name: `Товар ${id}`, sku: `S-${id}`, categoryId: 0, salePrice: 10 } } });
  expect((await importRecords(s.tb, [line(0, 1_000_000)], () => {})).failed).toBe(0);
  const ids = Array.from({ length: 50 }, (_, i) => 1_000 - i);
  const statements = await s.during(async () => expect((await importRecords(s.tb, ids.map((id, i) => line(i + 1, id)), () => {})).failed).toBe(0));
  const written = statements.filter(writesProducts);
  expect(written, statements.join('\n')).toHaveLength(1);
  expect(written[0]).toMatch(/^\s*INSERT/i);
  expect((await s.api.get('/api/products?limit=1&offset=49')).body.data[0]).toMatchObject({ id: 1_000, sku: 'S-1000', salePrice: 10 });
});

test('update-product-prices of 100 records runs at most 40 statements', async () => {
  const s = await counted();
  await s.api.write('/api/add-product-brand', 'brand', [{ name: 'Бренд' }]);
  await s.api.write('/api/add-product-category', 'category', [{ name: 'Группа' }]);
  for (let batch = 0; batch < 10; batch++) {
    const products = Array.from({ length: 10 }, (_, i) => ({ name: `Товар ${batch}-${i}`, sku: `S-${batch * 10 + i}`, categoryId: 1, brandId: 1, salePrice: 10 }));
    expect((await s.api.write('/api/add-product', 'products', products)).status).toBe(200);
  }
  const token = await s.api.token('/api/update-product-prices');
  const prices = Array.from({ length: 100 }, (_, i) => ({ sku: `S-${i}`, salePrice: 20 + i, minPrice: 1 }));
  const statements = await s.during(async () => expect((await s.api.post('/api/update-product-prices', { data: prices }, token)).status).toBe(200));
  expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(40);
  expect((await s.api.get('/api/product?sku=S-99')).body.data.salePrice).toBe(119);
});

test("update-product-prices of 100 products of 20 brands and 20 groups reads the brands' names with one statement and the groups' with one", async () => {
  const s = await counted();
  await s.api.write('/api/add-product-brand', 'brand', Array.from({ length: 20 }, (_, i) => ({ name: `Бренд ${i}` })));
  await s.api.write('/api/add-product-category', 'category', Array.from({ length: 20 }, (_, i) => ({ name: `Группа ${i}` })));
  for (let batch = 0; batch < 10; batch++) {
    const products = Array.from({ length: 10 }, (_, j) => batch * 10 + j).map((i) => ({ name: `Товар ${i}`, sku: `S-${i}`, categoryId: 1 + (i % 20), brandId: 1 + ((i * 7) % 20), salePrice: 10 }));
    expect((await s.api.write('/api/add-product', 'products', products)).status).toBe(200);
  }
  const token = await s.api.token('/api/update-product-prices');
  const prices = Array.from({ length: 100 }, (_, i) => ({ sku: `S-${i}`, salePrice: 20 + i }));
  const statements = await s.during(async () => expect((await s.api.post('/api/update-product-prices', { data: prices }, token)).status).toBe(200));
  const reading = (table: string) => statements.filter((sql) => new RegExp(`^\\s*SELECT\\b.*\\bFROM ${table}\\b`, 's').test(sql));
  expect(reading('product_brands'), statements.join('\n')).toHaveLength(1);
  expect(reading('product_categories'), statements.join('\n')).toHaveLength(1);
  expect((await s.api.get('/api/product?sku=S-13')).body.data).toMatchObject({ salePrice: 33, brand: { id: 12, name: 'Бренд 11' }, category: { id: 14, name: 'Группа 13' } });
});

test('an import group of 200 contractors whose ids come below the highest, in descending order, runs about the statements of one in ascending order', async () => {
  const statementsOf = async (ids: number[]) => {
    const s = await counted();
    const line = (n: number, id: number) => ({ line: n, value: { type: 'contractor', data: { id, ...contractor(n) } } });
    expect((await importRecords(s.tb, [line(0, 1_000_000)], () => {})).failed).toBe(0);
    const statements = await s.during(async () => expect((await importRecords(s.tb, ids.map((id, i) => line(i + 1, id)), () => {})).failed).toBe(0));
    expect((await s.api.get('/api/contractors?limit=1&offset=200')).body.data[0].id).toBe(Math.max(...ids, 1_000_000));
    return statements;
  };
  const ascending = await statementsOf(Array.from({ length: 200 }, (_, i) => 1_000_001 + i));
  const descending = await statementsOf(Array.from({ length: 200 }, (_, i) => 999_999 - i));
  // Looking up which ids below the highest exist: a statement a hundred, not one a line.
  expect(descending.length, descending.join('\n')).toBeLessThanOrEqual(ascending.length + 4);
});

/** A service holding a contractor, a product, its sale 3 and `documents`, with an auditor signed in to its workbench. */
async function auditedSale(documents: ReturnType<typeof money>[]) {
  const s = await counted();
  const imported = await importLines(s.tb, [
    line('contractor', romashka),
    line('product', { id: 1, name: 'Стол', sku: 'T1', categoryId: 0, salePrice: 1000 }),
    sale(3, 1, 500),
    ...documents,
  ]);
  expect(imported.failures).toEqual([]);
  const { key } = await s.tb.keys.create({ name: 'auditor', scope: 'audit' });
  const auditor = new Browser(s.app);
  expect((await auditor.signIn(key)).status).toBe(303);
  return { ...s, auditor };
}

test("a document's workbench page runs as many statements whatever the number of documents made from it", async () => {
  /** The statements of the sale's page when `payments` posted payments were made from it, each with a refund made from it. */
  const statementsOf = async (payments: number) => {
    const ids = Array.from({ length: payments }, (_, i) => 10 + i);
    const { during, auditor } = await auditedSale([
      ...ids.map((id) => money('paymentin', id, 1, 10, [{ type: 'sale', id: 3 }])),
      ...ids.map((id) => money('paymentout', 100 + id, 1, 1, [{ type: 'paymentin', id }])),
    ]);
    const statements = await during(async () => {
      const page = await auditor.get('/audit/document/sale/3');
      expect(page.status).toBe(200);
      expect(page.text).toContain(`Payment in ${10 + payments - 1}`);
    });
    return statements;
  };
  const one = await statementsOf(1);
  const twenty = await statementsOf(20);
  // The paid section reads a level of the tree a statement, never a statement a document.
  expect(twenty.length, twenty.join('\n')).toBe(one.length);
  // The session with its key, the document, its stream, its tree's numbers, the paid section's three levels, and
  // the company's details on the document's date (the `company` stream).
  expect(one.length, one.join('\n')).toBeLessThanOrEqual(8);
});

test("a contractor's statement page runs at most 6 statements for up to a hundred documents", async () => {
  const { during, auditor } = await auditedSale([money('paymentin', 4, 1, 300, [{ type: 'sale', id: 3 }])]);
  const statements = await during(async () => {
    const page = await auditor.get('/audit/statement?contractor=7&dateFrom=2026-01-01&dateTo=2026-12-31');
    expect(page.status).toBe(200);
    expect(page.text).toContain('ООО Ромашка');
  });
  // The session with its key, the contractor with its JSON, the balance before the period and the documents after
  // it (one aggregate), the period's documents' keys in order, the documents a hundred a statement (read a page at
  // a time, so that no answer holds a contractor's every document), the company's details (the `company` stream).
  expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(6);
});

test("a contractor's edit that its 250 documents show renders them again a hundred a statement, not one by one", async () => {
  const s = await counted();
  const sales = Array.from({ length: 250 }, (_, i) => sale(i + 1, 1, 100));
  expect((await importLines(s.tb, [line('product', table), line('contractor', romashka), ...sales, money('cashin', 1, 1, 100, [{ type: 'sale', id: 1 }])])).failures).toEqual([]);
  const renamed = { ...romashka, name: 'АО Ромашка' };
  const statements = await s.during(async () => expect((await s.api.write('/api/edit-contractor', 'contractors', [renamed])).status).toBe(200));
  // Their records and the figures their rows hold read and their rows written a hundred a statement: 3 of each.
  expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(30);
  const shown = (await s.api.get('/api/sales?limit=1&offset=249')).body.data[0];
  expect(shown).toMatchObject({ id: 250, contractor: { name: 'АО Ромашка' }, paid: 0 });
  expect((await s.api.get('/api/sales?limit=1')).body.data[0]).toMatchObject({ id: 1, contractor: { name: 'АО Ромашка' }, paid: 100 });
});
