import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { expectRebuildEqualsLive, line, money, romashka, sale, table } from '../documents-fixtures.ts';
import { openSqliteCompany, tempDir } from '../helpers.ts';
import { runCliHere } from '../cli-in-process.ts';
import { runCli, startServer } from '../server-process.ts';

function writeLines(dir: string, records: unknown[]): string {
  const file = path.join(dir, 'import.ndjson');
  fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

const tradebook = (db: string, ...args: string[]) => runCli(db, args);

describe('tradebook import', () => {
  test('reports bad lines with their number on stderr and exits non-zero; the good lines go in', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const db = path.join(dir, 't.db');
    const file = writeLines(dir, [line('product', table), line('contractor', romashka), sale(1, 1, 100, { contractor: { id: 5 } }), sale(2, 1, 100)]);
    const result = await tradebook(db, 'import', file);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('line 3: ERROR_CONTRACTOR (contractor): contractor 5 does not exist');
    expect(result.stdout).toContain('4 lines: 3 applied, 1 failed');
  });

  test('a document whose lines name a product that does not exist is refused with its line number; no party is filled from elsewhere', async () => {
    const dir = tempDir();
    const db = path.join(dir, 't.db');
    const lines = [line('product', table), line('contractor', romashka), sale(1, 1, 100, { products: [{ pr_id: 1, pr_count: 1, pr_price: 100 }, { pr_id: 999999, pr_count: 2, pr_price: 100.5 }] }), sale(2, 1, 100)];
    const result = await runCliHere(db, ['import', writeLines(dir, lines)]);
    expect(result.stderr).toBe('line 3: ERROR_PRODUCTS (products): products[1].pr_id: product 999999 does not exist\n');
    expect([result.status, result.stdout]).toEqual([1, expect.stringMatching(/^4 lines: 3 applied, 1 failed, 3 events appended \(import run \d+\)\n$/)]);
    const recorded = (await runCliHere(db, ['events'])).stdout
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text))
      .filter((event) => event.type === 'DocumentRecorded');
    // Sale 2 alone: nothing of sale 1 went in, and the sale that named no company has none.
    expect(recorded.map((event) => [event.stream, event.data.fields.company])).toEqual([['sale-2', null]]);
  });

  test('import while a server runs on the same file: the next read shows the documents', { timeout: 90_000 }, async () => {
    const dir = tempDir();
    const db = path.join(dir, 'live.db');
    const key = 'tb_test_key_for_the_running_server_0001';
    const server = await startServer(db, key);
    try {
      const get = async (url: string) => {
        const res = await fetch(`${server.url}${url}`, { headers: { Authorization: `Bearer ${key}` } });
        return { status: res.status, body: await res.json() };
      };
      expect((await get('/api/sales')).body.meta.allCount).toBe(0);
      const first = writeLines(dir, [line('product', table), line('contractor', romashka), sale(1, 1, 1000), money('cashin', 1, 1, 300, [{ type: 'sale', id: 1 }])]);
      expect((await tradebook(db, 'import', first)).status).toBe(0);
      const sales = await get('/api/sales');
      expect(sales.body.meta.allCount).toBe(1);
      expect(sales.body.data[0].paid).toBe(300);
      expect((await get('/api/contractors')).body.data[0].balance).toBe(-700);

      // A second import moves figures the server already served.
      const second = writeLines(dir, [money('cashin', 1, 0, 300, [{ type: 'sale', id: 1 }])]);
      expect((await tradebook(db, 'import', second)).status).toBe(0);
      expect((await get('/api/sales')).body.data[0].paid).toBe(0);
      expect((await get('/api/cashins?status=0')).body.meta.allCount).toBe(1);
    } finally {
      await server.stop();
    }
  });
});

describe('tradebook seed', () => {
  const sizes = ['--products', '40', '--contractors', '15', '--documents', '120'];

  test('builds a deterministic demo company through the commands; rebuild equals live; refuses a non-empty database', { timeout: 120_000 }, async () => {
    const dir = tempDir();
    const [a, b] = [path.join(dir, 'a.db'), path.join(dir, 'b.db')];
    const seeded = await tradebook(a, 'seed', '--demo', ...sizes);
    expect(seeded.status).toBe(0);
    expect(seeded.stdout).toMatch(/seeded \d+ records/);
    expect((await tradebook(b, 'seed', '--demo', ...sizes)).status).toBe(0);

    const again = await tradebook(a, 'seed', '--demo');
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/is not empty/);
    expect((await tradebook(path.join(dir, 'c.db'), 'seed')).stderr).toMatch(/--demo/);

    /** Every read table of a database, and its documents and contractors as the lists serve them. */
    const lists = async (file: string) => {
      const tb = await openSqliteCompany(file);
      try {
        const tables = tb.readTables();
        return { tables, rows: tables.documents as { list_json: string }[], contractors: (tables.contractors as { json: string }[]).map((c) => c.json) };
      } finally {
        tb.close();
      }
    };
    const first = await lists(a);
    expect((await lists(b)).tables).toEqual(first.tables);
    expect(first.rows).toHaveLength(120);
    expect(first.contractors).toHaveLength(15);

    const docs = first.rows.map((r) => JSON.parse(r.list_json));
    const ofType = (type: string) => docs.filter((d) => d.type === type);
    expect(ofType('customerorder').length).toBeGreaterThan(0);
    expect(ofType('sale').some((s) => s.fiscal === 1)).toBe(true);
    expect(ofType('sale').some((s) => s.status === 0)).toBe(true);
    expect(docs.some((d) => d.name === 'Касса (Наличные)') || docs.some((d) => d.name === 'Касса (Карточка)')).toBe(true);
    expect(ofType('sale').some((s) => s.paid > 0 && s.tree.type === 'customerorder')).toBe(true);
    for (const c of first.contractors.map((j) => JSON.parse(j))) {
      expect(c.inn).toMatch(c.type === 'ЮЛ' ? /^\d{10}$/ : /^\d{12}$/);
      if (c.type === 'ЮЛ') expect(c.kpp).toMatch(/^\d{9}$/);
    }

    const tb = await openSqliteCompany(a);
    try {
      await expectRebuildEqualsLive(tb);
    } finally {
      tb.close();
    }
  });
});
