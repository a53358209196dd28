import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, test, vi } from 'vitest';
import { importLines } from '../../src/use-cases/import.ts';
import type { EventFilter } from '../../src/events/store.ts';
import { manualClock, testService } from '../helpers.ts';
import { runCliHere as runCli } from '../cli-in-process.ts';

// The commands run in this process (they took seconds each as processes on a busy machine).
vi.setConfig({ testTimeout: 120_000 });

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
    const run = (await runCli(file, ['events']));
    expect(run.status).toBe(0);
    const events = lines(run.stdout);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(events[0]).toMatchObject({ stream: 'product-1', streamVersion: 1, type: 'ProductAdded', recordedAt: '2026-11-22T09:00:00.000Z' });
    expect(events[0].hash).toMatch(/^[0-9a-f]{64}$/);
    expect(events[4]).toMatchObject({ type: 'BrandAdded', meta: { source: 'import', importLine: 1 } });
  });

  test("an API write's events carry the access token's SHA-256, never the token", async () => {
    const { file, api } = await serviceWithHistory();
    const token = await api.token('/api/add-product-brand');
    expect((await api.post('/api/add-product-brand', { brand: [{ name: 'Марка' }] }, token)).status).toBe(200);
    const run = await runCli(file, ['events']);
    expect(run.status).toBe(0);
    expect(run.stdout).not.toContain(token);
    const events = lines(run.stdout);
    expect(events[5]).toMatchObject({ type: 'BrandAdded', meta: { keyId: 1, tokenHash: createHash('sha256').update(token).digest('hex') } });
    for (const e of events) expect(Object.keys(e.meta)).not.toContain('token');
  });

  test('the log read by seq with filters: after, stream, type and since combine', async () => {
    const { tb } = await serviceWithHistory();
    /** Every matching seq, read a page of `limit` at a time, each page after the last seq of the one before. */
    const seqs = async ({ after = 0, ...filter }: EventFilter, limit = 1000) => {
      const found: number[] = [];
      for (let page = await tb.audit.eventsAfter(after, limit, filter); page.length > 0; page = await tb.audit.eventsAfter(found.at(-1)!, limit, filter)) {
        found.push(...page.map((r) => r.seq));
      }
      return found;
    };
    expect(await seqs({ after: 3 })).toEqual([4, 5]);
    expect(await seqs({ stream: 'product-1' })).toEqual([1, 4]);
    expect(await seqs({ type: 'ProductAdded' })).toEqual([1, 2, 3]);
    expect(await seqs({ since: '2026-11-22T09:10:00.000Z' })).toEqual([4, 5]);
    expect(await seqs({ since: '2026-11-22T09:10:00.000Z', after: 4 })).toEqual([5]);
    expect(await seqs({ since: '2027-01-01T00:00:00.000Z' })).toEqual([]);
    expect(await seqs({ type: 'ProductAdded', after: 1, stream: 'product-3' })).toEqual([3]);
    expect(await seqs({ type: 'NoSuchEvent' })).toEqual([]);
    // Paging by seq loses and repeats nothing.
    expect(await seqs({ type: 'ProductAdded' }, 1)).toEqual([1, 2, 3]);
    expect(await seqs({}, 2)).toEqual([1, 2, 3, 4, 5]);
  });

  test('the command line passes the filters on, --since read as Moscow time', async () => {
    const { file } = await serviceWithHistory();
    expect(lines((await runCli(file, ['events', '--since', '2026-11-22 12:10:01'])).stdout).map((e) => e.seq)).toEqual([5]);
    expect(lines((await runCli(file, ['events', '--type', 'ProductAdded', '--after', '1', '--stream', 'product-3'])).stdout).map((e) => e.seq)).toEqual([3]);
  });

  test('a bad --since or --after is a usage error', async () => {
    const { file } = await serviceWithHistory();
    for (const args of [['--since', '2026-02-30 10:00:00'], ['--after', '-1']]) {
      const run = (await runCli(file, ['events', ...args]));
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(args[0]);
    }
  });
});

describe('tradebook history', () => {
  test('tells each event of a record: Moscow time with its offset, the key by name, what changed', async () => {
    const { file } = await serviceWithHistory();
    const run = (await runCli(file, ['history', 'product-1']));
    expect(run.status).toBe(0);
    const [added, repriced, ...rest] = run.stdout.trim().split('\n');
    expect(rest).toEqual([]);
    expect(added).toMatch(/^2026-11-22 12:00:00\+03:00  #1 v1 ProductAdded  key 1 "test"  /);
    for (const field of ['name: "Молоко"', 'sku: "M1"', 'categoryId: 0', 'salePrice: 1000', 'brandId: null']) expect(added).toContain(field);
    expect(repriced).toBe('2026-11-22 12:10:00+03:00  #4 v2 ProductPricesUpdated  key 1 "test"  salePrice: 1000 → 1250');
  });

  test('names the import line for imported events, and --json prints the entries', async () => {
    const { file } = await serviceWithHistory();
    const run = (await runCli(file, ['history', 'brand-1', '--json']));
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
        before: {},
      },
    ]);
  });

  test('a record of 600 events: every one, in order, each before → after, as lines and as one JSON array', async () => {
    const { file, tb } = await serviceWithHistory();
    const edits = Array.from({ length: 599 }, (_, i) => `{"type":"product_brand","data":{"id":1,"name":"Бренд ${i + 1}"}}`);
    expect((await importLines(tb, Readable.from(edits), () => {})).applied).toBe(599);
    const text = await runCli(file, ['history', 'brand-1']);
    expect(text.status).toBe(0);
    const shown = text.stdout.trim().split('\n');
    expect(shown).toHaveLength(600);
    expect(shown[500]).toContain(`v501 BrandEdited  import line 500  name: "Бренд 499" → "Бренд 500"`);
    const json = await runCli(file, ['history', 'brand-1', '--json']);
    const entries = JSON.parse(json.stdout) as { streamVersion: number; before: { name?: string }; changes: { name?: string } }[];
    expect(entries.map((e) => e.streamVersion)).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
    expect(entries[250]).toMatchObject({ before: { name: 'Бренд 249' }, changes: { name: 'Бренд 250' } });
  });

  test('an unknown stream is an error', async () => {
    const { file } = await serviceWithHistory();
    const run = (await runCli(file, ['history', 'product-99']));
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('no events in stream product-99');
    const nowhere = (await runCli(`${file}.missing`, ['events']));
    expect(nowhere.status).toBe(2);
    expect(nowhere.stderr).toContain('no database at');
  });
});
