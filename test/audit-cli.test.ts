import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { importLines } from '../src/commands/import.ts';
import { manualClock, testService } from './helpers.ts';
import { runCli } from './cli.ts';

/** Three products, a price change at 12:10 Moscow and an imported brand at 12:20 Moscow. */
async function serviceWithHistory() {
  const clock = manualClock(Date.parse('2026-11-22T09:00:00Z')); // 12:00:00 Moscow
  const service = await testService({ clock });
  const added = await service.api.write('/api/add-product', 'products', [
    { name: 'Молоко', sku: 'M1', categoryId: 0, salePrice: 10 },
    { name: 'Хлеб', sku: 'B1', categoryId: 0 },
    { name: 'Сыр', sku: 'C1', categoryId: 0 },
  ]);
  expect(added.status).toBe(200);
  clock.advance(10 * 60_000);
  expect((await service.api.write('/api/update-product-prices', 'data', [{ sku: 'M1', salePrice: 12.5 }])).status).toBe(200);
  clock.advance(10 * 60_000);
  const report = await importLines(service.tb, Readable.from(['{"type":"product_brand","data":{"name":"Простоквашино"}}']), () => {});
  expect(report.applied).toBe(1);
  return service;
}

const lines = (text: string) => text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));

describe('tradebook events', () => {
  test('prints the whole log as NDJSON with every stored column', async () => {
    const { file } = await serviceWithHistory();
    const run = runCli(file, ['events']);
    expect(run.status).toBe(0);
    const events = lines(run.stdout);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(events[0]).toMatchObject({ stream: 'product-1', streamVersion: 1, type: 'ProductAdded', recordedAt: '2026-11-22T09:00:00.000Z' });
    expect(events[0].hash).toMatch(/^[0-9a-f]{64}$/);
    expect(events[4]).toMatchObject({ type: 'BrandAdded', meta: { source: 'import', importLine: 1 } });
  });

  test('--after, --stream, --type and --since filter, and combine', async () => {
    const { file } = await serviceWithHistory();
    expect(lines(runCli(file, ['events', '--after', '3']).stdout).map((e) => e.seq)).toEqual([4, 5]);
    expect(lines(runCli(file, ['events', '--stream', 'product-1']).stdout).map((e) => e.type)).toEqual(['ProductAdded', 'ProductPricesUpdated']);
    expect(lines(runCli(file, ['events', '--type', 'ProductAdded']).stdout).map((e) => e.stream)).toEqual(['product-1', 'product-2', 'product-3']);
    expect(lines(runCli(file, ['events', '--since', '2026-11-22 12:10:00']).stdout).map((e) => e.seq)).toEqual([4, 5]);
    expect(lines(runCli(file, ['events', '--since', '2026-11-22 12:10:01']).stdout).map((e) => e.seq)).toEqual([5]);
    expect(lines(runCli(file, ['events', '--type', 'ProductAdded', '--after', '1', '--stream', 'product-3']).stdout).map((e) => e.seq)).toEqual([3]);
    expect(runCli(file, ['events', '--type', 'NoSuchEvent']).stdout).toBe('');
  });

  test('a bad --since or --after is a usage error', async () => {
    const { file } = await serviceWithHistory();
    for (const args of [['--since', '2026-11-22'], ['--since', '2026-02-30 10:00:00'], ['--after', '-1']]) {
      const run = runCli(file, ['events', ...args]);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(args[0]);
    }
  });
});

describe('tradebook history', () => {
  test('tells each event of a record: Moscow time, the key by name, what changed', async () => {
    const { file } = await serviceWithHistory();
    const run = runCli(file, ['history', 'product-1']);
    expect(run.status).toBe(0);
    const [added, repriced, ...rest] = run.stdout.trim().split('\n');
    expect(rest).toEqual([]);
    expect(added).toMatch(/^2026-11-22 12:00:00  #1 v1 ProductAdded  key 1 "test"  /);
    for (const field of ['name: "Молоко"', 'sku: "M1"', 'categoryId: 0', 'salePrice: 1000', 'brandId: null']) expect(added).toContain(field);
    expect(repriced).toBe('2026-11-22 12:10:00  #4 v2 ProductPricesUpdated  key 1 "test"  salePrice: 1250');
  });

  test('names the import line for imported events, and --json prints the entries', async () => {
    const { file } = await serviceWithHistory();
    const run = runCli(file, ['history', 'brand-1', '--json']);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([
      {
        seq: 5,
        streamVersion: 1,
        type: 'BrandAdded',
        time: '2026-11-22 12:20:00',
        recordedAt: '2026-11-22T09:20:00.000Z',
        who: 'import line 1',
        changes: { name: 'Простоквашино', logo: null },
      },
    ]);
  });

  test('an unknown stream is an error', async () => {
    const { file } = await serviceWithHistory();
    const run = runCli(file, ['history', 'product-99']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('no events in stream product-99');
  });
});
