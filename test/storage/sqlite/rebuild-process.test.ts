import { spawnSync } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ok } from '../../../src/lib/result.ts';
import { brandsProjector } from '../../../src/projections/brands.ts';
import { readCheckpoints } from '../../../src/projections/registry.ts';
import { sqliteSession } from '../../../src/storage/sqlite/session.ts';
import { openSqliteCompany, testService } from '../../helpers.ts';
import { runCli, spawnCli, startServer } from '../../server-process.ts';

// Each command runs as its own process (a few seconds each on a busy machine).
vi.setConfig({ testTimeout: 180_000 });

/** Every read table's rows and the checkpoints, as one comparable value. */
function readTables(file: string): unknown {
  const db = new Database(file, { readonly: true });
  const tables = {
    brands: db.prepare('SELECT * FROM product_brands ORDER BY id').all(),
    products: db.prepare('SELECT * FROM products ORDER BY id').all(),
    categories: db.prepare('SELECT * FROM product_categories ORDER BY id').all(),
    checkpoints: db.prepare('SELECT * FROM projection_checkpoints ORDER BY name').all(),
  };
  db.close();
  return tables;
}

describe('tradebook rebuild', () => {
  test('a rebuild that outgrows its heap limit is started again without it, and succeeds', async () => {
    const { tb, api, file } = await testService();
    expect((await api.write('/api/add-product-brand', 'brand', [{ name: 'Один' }, { name: 'Два' }])).status).toBe(200);
    tb.close();
    const before = readTables(file);
    // A limit no rebuild thread fits in, as a large catalogue would outgrow the default one.
    process.env.TRADEBOOK_REBUILD_HEAP_MB = '1';
    const run = await runCli(file, ['rebuild']).finally(() => delete process.env.TRADEBOOK_REBUILD_HEAP_MB);
    expect(run.stderr).toContain('more than 1 MB of heap; rebuilding again without that limit');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('rebuilt every projection from 2 events');
    expect(readTables(file)).toEqual(before);
  });

  test('killed mid-rebuild, the old tables stay in place; a rerun succeeds', async () => {
    const { tb, api, file } = await testService();
    expect((await api.write('/api/add-product', 'products', [{ name: 'Молоко', sku: 'M1', categoryId: 0 }])).status).toBe(200);
    // A log long enough that the rebuild is still running when it is killed.
    for (let batch = 0; batch < 30; batch++) {
      await tb.write(async () => {
        const events = Array.from({ length: 5000 }, (_, i) => {
          const id = batch * 5000 + i + 1;
          return { stream: `brand-${id}`, type: 'BrandAdded' as const, data: { id, name: `Бренд ${id}`, logo: null } };
        });
        await tb.log.append(events, { source: 'test' });
        return ok(undefined);
      });
    }
    tb.close();
    const before = readTables(file);

    const child = spawnCli(file, ['rebuild']);
    let stderr = '';
    let stdout = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    await new Promise<void>((resolve) =>
      child.stderr!.on('data', (chunk) => {
        stderr += chunk;
        if (/rebuild: \d+\/150001 events/.test(stderr)) resolve();
      }),
    );
    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^rebuild: \d+\/150001 events, \d+ events\/s, ETA \d+s\n/);
    expect(readTables(file)).toEqual(before);

    const rerun = (await runCli(file, ['rebuild']));
    expect(rerun.stdout).toMatch(/^rebuilt every projection from 150001 events in [\d.]+ s\n$/);
    expect(rerun.status).toBe(0);
    expect(readTables(file)).toEqual(before);
    // The killed run's tables, built beside the served ones, are gone.
    const db = new Database(file, { readonly: true });
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name LIKE 'rebuilding%'").pluck().get()).toBe(0);
    db.close();
  });
});

test('a rebuild beside a writer that keeps taking the write lock waits its turn and completes', async () => {
  const { tb, file } = await testService();
  // Products: applying one reads before it writes, the case where SQLite cannot let a transaction wait for the lock.
  const product = (id: number) => ({
    id, name: `Товар ${id}`, sku: `S${id}`, categoryId: 0, brandId: null, unit: null, vat: null, minPrice: 0, purchasePrice: 0, salePrice: 100,
    barcodes: [], code: null, order: null, weight: null, dimensionX: null, dimensionY: null, dimensionZ: null, parent: null,
    additionalPrices: [], packs: [], additionalFields: [], files: [],
  });
  for (let batch = 0; batch < 6; batch++) {
    await tb.write(async () => {
      const events = Array.from({ length: 5000 }, (_, i) => ({ stream: `product-${batch * 5000 + i + 1}`, type: 'ProductAdded' as const, data: product(batch * 5000 + i + 1) }));
      await tb.log.append(events, { source: 'test' });
      return ok(undefined);
    });
  }
  const before = readTables(file);
  // Holds the write lock about half the time, in turns of 2 ms, as long as the rebuild runs: held across a timer,
  // not a loop waiting for the clock, so the test keeps no core busy while the rebuild needs both.
  const writer = new Database(file);
  writer.pragma('busy_timeout = 10000');
  let running = true;
  let turn = Promise.resolve();
  const hold = () => {
    if (!running) return;
    writer.exec('BEGIN IMMEDIATE');
    turn = new Promise((resolve) =>
      setTimeout(() => {
        writer.exec('COMMIT');
        resolve();
        setTimeout(hold, 2);
      }, 2),
    );
  };
  hold();
  const run = await runCli(file, ['rebuild']);
  running = false;
  await turn;
  writer.close();
  expect(run.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('rebuild: '))).toEqual([]);
  expect(run.status).toBe(0);
  expect(readTables(file)).toEqual(before);
});

/** `script` runs a command on a pseudo-terminal, as an operator's shell would. */
const hasScript = spawnSync('script', ['--version']).status === 0;

test.skipIf(!hasScript)('on a terminal, rebuild shows a progress bar with events/s and ETA', async () => {
  const { tb, file } = await testService();
  await tb.write(async () => {
    await tb.log.append(
      Array.from({ length: 25_000 }, (_, i) => ({ stream: `brand-${i + 1}`, type: 'BrandAdded' as const, data: { id: i + 1, name: `Бренд ${i + 1}`, logo: null } })),
      { source: 'test' },
    );
    return ok(undefined);
  });
  tb.close();
  const bin = path.resolve(import.meta.dirname, '../../../bin/tradebook.mjs');
  const run = spawnSync('script', ['-qec', `"${process.execPath}" "${bin}" rebuild`, '/dev/null'], { env: { ...process.env, TRADEBOOK_DB: file }, encoding: 'utf8' });
  expect(run.status).toBe(0);
  expect(run.stdout).toMatch(/rebuild \[[=-]+\] 100% \| 25000\/25000 events \| \d+ events\/s \| ETA \d+s/);
  expect(run.stdout).toContain('rebuilt every projection from 25000 events');
  expect(run.stdout).not.toContain('rebuild: '); // no plain lines on a terminal
});

describe('projection versions', () => {
  const codeVersion = brandsProjector.version;
  afterEach(() => {
    brandsProjector.version = codeVersion;
  });

  test('a projector whose code version differs from its tables is rebuilt at open, and named', async () => {
    const { api, tb, file } = await testService();
    expect((await api.write('/api/add-product-brand', 'brand', [{ name: 'Ферма' }])).status).toBe(200);
    tb.close();
    const before = readTables(file) as { brands: unknown };

    brandsProjector.version = codeVersion + 1;
    const rebuilt: string[][] = [];
    const reopened = await openSqliteCompany(file, { onRebuilt: (names) => rebuilt.push(names) });
    expect(rebuilt).toEqual([['brands']]);
    expect((await readCheckpoints(sqliteSession(reopened.db))).get('brands')).toEqual({ name: 'brands', version: codeVersion + 1, last_seq: 1 });
    expect(await reopened.brands.allJson()).toEqual(['{"id":1,"name":"Ферма","logo":null}']);
    reopened.close();
    expect((readTables(file) as { brands: unknown }).brands).toEqual(before.brands);

    const again: string[][] = [];
    (await openSqliteCompany(file, { onRebuilt: (names) => again.push(names) })).close();
    expect(again).toEqual([]);
  });

  test('the server logs the rebuild before it listens', async () => {
    const { api, tb, file, key } = await testService();
    expect((await api.write('/api/add-product', 'products', [{ name: 'Молоко', sku: 'M1', categoryId: 0 }])).status).toBe(200);
    tb.close();
    // Tables as an older version of the products projector left them.
    const db = new Database(file);
    db.prepare("UPDATE projection_checkpoints SET version = version - 1 WHERE name = 'products'").run();
    db.close();

    const server = await startServer(file, '');
    try {
      const output = server.output();
      expect(output).toContain('rebuilt projections whose version changed: products');
      expect(output.indexOf('rebuilt projections')).toBeLessThan(output.indexOf('listening on port'));
      const list = await fetch(`${server.url}/api/products`, { headers: { Authorization: `Bearer ${key}` } });
      expect(((await list.json()) as { meta: { allCount: number } }).meta.allCount).toBe(1);
    } finally {
      await server.stop();
    }
  });
});
