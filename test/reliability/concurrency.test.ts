import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { openSqliteCompany, type SqliteCompany, tempDir } from '../helpers.ts';
import { HttpClient, type ServerProcess, runCli, startServer } from '../server-process.ts';

const KEY = 'tb_concurrency_test_key_0123456789';

/** Reads the log the processes wrote, through a tradebook of this process's own on the same file. */
async function readLog<T>(file: string, read: (audit: SqliteCompany['audit']) => Promise<T>): Promise<T> {
  const tb = await openSqliteCompany(file);
  try {
    return await read(tb.audit);
  } finally {
    tb.close();
  }
}

/** Client loops writing brand batches until `until`; every answer is recorded with the names it sent. */
async function brandWriter(client: HttpClient, tag: string, until: number, answers: { status: number; text: string; names: string[]; ms: number }[]) {
  for (let i = 0; Date.now() < until; i++) {
    const names = [`${tag}-${i}-a`, `${tag}-${i}-b`];
    const started = Date.now();
    const res = await client.write('/api/add-product-brand', 'brand', names.map((name) => ({ name })));
    answers.push({ status: res.status, text: res.text, names, ms: Date.now() - started });
  }
}

function importFile(dir: string, lines: number): string {
  const file = path.join(dir, 'import.ndjson');
  const text = Array.from({ length: lines }, (_, i) => JSON.stringify({ type: 'product', data: { name: `Импорт ${i}`, sku: `IMP-${i}`, categoryId: 0, salePrice: i } }));
  fs.writeFileSync(file, `${text.join('\n')}\n`);
  return file;
}

test('two servers under write load while the command line imports into the same database: no SQLITE_BUSY, no 500, every write lands', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'shared.db');
  const servers: ServerProcess[] = [await startServer(file, KEY), await startServer(file, KEY)];
  try {
    const answers: { status: number; text: string; names: string[]; ms: number }[] = [];
    const until = Date.now() + 8000;
    const load = servers.flatMap((s, n) => [0, 1, 2].map((c) => brandWriter(new HttpClient(s.url, KEY), `s${n}c${c}`, until, answers)));
    // The other writers of the same file. `tradebook seed` joins here as one more entry.
    const otherWriters = [runCli(file, ['import', importFile(dir, 3000)])];
    const [imported] = await Promise.all(otherWriters);
    await Promise.all(load);

    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('3000 applied, 0 failed');
    const failures = answers.filter((a) => a.status !== 200);
    expect(failures.map((f) => `${f.status} ${f.text}`)).toEqual([]);
    expect(answers.length).toBeGreaterThan(20);
    for (const s of servers) expect(s.output()).not.toMatch(/SQLITE_BUSY|ERROR_INTERNAL|Error/);

    const slowest = Math.max(...answers.map((a) => a.ms));
    console.log(`${answers.length} batches, slowest ${slowest} ms`);
    await Promise.all(servers.map((s) => s.stop()));
    const { brands, products } = await readLog(file, async (audit) => ({
      brands: await audit.eventsAfter(0, 100_000, { type: 'BrandAdded' }),
      products: await audit.eventsAfter(0, 100_000, { type: 'ProductAdded' }),
    }));
    const stored = new Set(brands.map((row) => JSON.parse(row.data).name));
    expect(products).toHaveLength(3000);
    for (const a of answers) for (const name of a.names) expect(stored.has(name)).toBe(true);
    expect(stored.size).toBe(answers.length * 2);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
});

test('parallel edits of one product through two servers are serialised: the last writer wins whole, every edit is in the history', async () => {
  const file = path.join(tempDir(), 'one-record.db');
  const servers = [await startServer(file, KEY), await startServer(file, KEY)];
  try {
    const first = new HttpClient(servers[0].url, KEY);
    const added = await first.write('/api/add-product', 'products', [{ name: 'Исходный', sku: 'ONE', categoryId: 0 }]);
    expect(added.status).toBe(200);
    const id = added.body.data[0].id;

    // Each edit sets every field from one tag, so a mixed record would show two tags.
    const edit = async (client: HttpClient, tag: string, n: number) => {
      const res = await client.write('/api/edit-product', 'products', [{ id, name: tag, sku: `ONE-${tag}`, unit: tag, salePrice: n, categoryId: 0 }]);
      return { tag, status: res.status, text: res.text };
    };
    const clients = servers.flatMap((s) => Array.from({ length: 4 }, () => new HttpClient(s.url, KEY)));
    const results = await Promise.all(clients.flatMap((client, c) => Array.from({ length: 5 }, (_, i) => edit(client, `c${c}e${i}`, c * 100 + i))));
    expect(results.filter((r) => r.status !== 200).map((r) => r.text)).toEqual([]);

    const product = (await first.request('GET', `/api/product?id=${id}`)).body.data;
    const history = await readLog(file, (audit) => audit.streamVersions(`product-${id}`, 1, Number.MAX_SAFE_INTEGER));
    expect(history.map((h) => h.streamVersion)).toEqual(history.map((_, i) => i + 1));
    const changes = history.slice(1).map((h) => (h.data as { changes: { name: string; salePrice: number } }).changes);
    expect(changes.map((c) => c.name).sort()).toEqual(results.map((r) => r.tag).sort());
    const last = changes[changes.length - 1];
    expect(product).toMatchObject({ name: last.name, sku: `ONE-${last.name}`, unit: last.name, salePrice: last.salePrice / 100 });
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
});
