import { projectors } from '../../src/projections/registry.ts';
import { describe, expect, test, vi } from 'vitest';
import { testService } from '../helpers.ts';
import { runCliHere as runCli } from '../cli-in-process.ts';
import { tamper } from '../storage/sqlite/at-rest.ts';

// The commands run in this process (they took seconds each as processes on a busy machine).
vi.setConfig({ testTimeout: 120_000 });

/** Products 1..3 added, product 2 renamed: seq 1..4. */
async function loggedService() {
  const service = await testService();
  const products = [1, 2, 3].map((n) => ({ name: `Товар ${n}`, sku: `S${n}`, categoryId: 0, salePrice: n * 10 }));
  expect((await service.api.write('/api/add-product', 'products', products)).status).toBe(200);
  expect((await service.api.write('/api/edit-product', 'products', [{ id: 2, name: 'Второй', sku: 'S2', categoryId: 0 }])).status).toBe(200);
  service.tb.close();
  return service;
}

const readTableCount = projectors.flatMap((p) => p.tables).length;

describe('tradebook verify', () => {
  test('an untouched database passes: exit 0 and a one-line summary', async () => {
    const { file } = await loggedService();
    const run = (await runCli(file, ['verify']));
    expect(run.stdout).toBe(`verify: OK: hash chain of 4 events intact; ${readTableCount} read tables equal a fresh rebuild\n`);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  test("an event's data edited by hand is caught at that seq and stream", async () => {
    const { file } = await loggedService();
    tamper(file, `UPDATE events SET data = replace(data, '"salePrice":2000', '"salePrice":1') WHERE seq = 2`);
    const run = (await runCli(file, ['verify']));
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^verify: FAILED: hash chain broken at seq 2 \(product-2\): event 2 of product-2 does not match its hash;/);
    expect(run.stdout.split('\n')).toHaveLength(2);
  });

  test('a deleted event is caught: in the middle by the chain, at the end by the read tables', async () => {
    const { file } = await loggedService();
    tamper(file, 'DELETE FROM events WHERE seq = 3');
    const middle = (await runCli(file, ['verify']));
    expect(middle.status).toBe(1);
    expect(middle.stdout).toContain('hash chain broken at seq 3 (product-2): event 3 is missing (the next one is 4 of product-2)');

    const other = await loggedService();
    tamper(other.file, 'DELETE FROM events WHERE seq = 4');
    const tail = (await runCli(other.file, ['verify']));
    expect(tail.status).toBe(1);
    expect(tail.stdout).toMatch(/^verify: FAILED: hash chain of 3 events intact; the read tables differ from a fresh rebuild \(\d+ found\)\n$/);
    expect(tail.stderr).toContain('projection products is at seq 4, the log ends at 3');
    expect(tail.stderr).toContain('table products: live rows not in a fresh rebuild: 1, rebuilt rows not live: 1; first: id 2');
  });

  test('a read-table row edited by hand is caught, with the table named', async () => {
    const { file } = await loggedService();
    tamper(file, "UPDATE products SET list_json = replace(list_json, 'Товар 1', 'Подделка') WHERE id = 1");
    const run = (await runCli(file, ['verify']));
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('verify: FAILED: hash chain of 4 events intact; the read tables differ from a fresh rebuild (1 found)\n');
    expect(run.stderr).toBe('table products: live rows not in a fresh rebuild: 1, rebuilt rows not live: 1; first: id 1\n');
  });

  test('a log that no longer replays is reported, not a crash', async () => {
    const { file } = await loggedService();
    tamper(file, `UPDATE events SET data = 'not json' WHERE seq = 4`);
    const run = (await runCli(file, ['verify']));
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('hash chain broken at seq 4 (product-2)');
    expect(run.stderr).toContain('the log does not replay');
  });
});
