import { projectors } from '../../src/projections/registry.ts';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { ApiClient, manualClock, openSqliteCompany, tempDir, testService } from '../helpers.ts';
import { runCliHere as runCli } from '../cli-in-process.ts';
import { startServer } from '../server-process.ts';

// The commands run in this process (they took seconds each as processes on a busy machine).
vi.setConfig({ testTimeout: 120_000 });

const READS = [
  '/api/products',
  '/api/products?limit=2&offset=1',
  '/api/product?id=1',
  '/api/product?sku=S2',
  '/api/product?id=4',
  '/api/product-categories',
  '/api/product-brands',
  '/api/events',
  '/api/history?stream=product-1',
  '/api/history?stream=product-4',
];

/** Writes at 12:00 Moscow (seq 1..5), then more at 12:10 (edits, a new product, new prices). */
async function serviceWithTwoPeriods() {
  const clock = manualClock(Date.parse('2026-11-22T09:00:00Z'));
  const service = await testService({ clock });
  const { key: auditKey } = await service.tb.keys.create({ name: 'auditor', scope: 'audit' });
  const auditor = new ApiClient(service.app, auditKey);
  expect((await service.api.write('/api/add-product-category', 'category', [{ name: 'Молочное' }])).status).toBe(200);
  expect((await service.api.write('/api/add-product-brand', 'brand', [{ name: 'Ферма' }])).status).toBe(200);
  const products = [1, 2, 3].map((n) => ({ name: `Товар ${n}`, sku: `S${n}`, categoryId: 1, brandId: 1, salePrice: n }));
  expect((await service.api.write('/api/add-product', 'products', products)).status).toBe(200);
  const snapshot = await answers(auditor);
  clock.advance(10 * 60_000);
  expect((await service.api.write('/api/edit-product-category', 'category', [{ id: 1, name: 'Молоко и сыр' }])).status).toBe(200);
  expect((await service.api.write('/api/add-product', 'products', [{ name: 'Товар 4', sku: 'S4', categoryId: 0 }])).status).toBe(200);
  expect((await service.api.write('/api/update-product-prices', 'data', [{ sku: 'S1', salePrice: 100 }])).status).toBe(200);
  return { ...service, auditor, auditKey, snapshot };
}

async function answers(client: ApiClient): Promise<Record<string, { status: number; text: string }>> {
  const result: Record<string, { status: number; text: string }> = {};
  for (const url of READS) {
    const res = await client.get(url);
    result[url] = { status: res.status, text: res.text };
  }
  return result;
}

async function openCopy(file: string, key: string) {
  const tb = await openSqliteCompany(file);
  return { tb, client: new ApiClient(createApp(tb), key) };
}

const readTableCount = projectors.flatMap((p) => p.tables).length;

describe('tradebook rebuild --until --into', () => {
  test('the copy at seq N answers the API exactly as the live database did at seq N', async () => {
    const { file, auditor, auditKey, snapshot } = await serviceWithTwoPeriods();
    expect(await answers(auditor)).not.toEqual(snapshot);
    const copy = path.join(tempDir(), 'at-5.db');
    const run = (await runCli(file, ['rebuild', '--until', '5', '--into', copy]));
    expect(run.stderr).toContain('rebuild: 5/5 events');
    expect(run.stdout).toMatch(/^wrote .*at-5\.db: the log up to seq 5 and its read tables, in [\d.]+ s; it is read-only\n$/);
    expect(run.status).toBe(0);
    const { tb, client } = await openCopy(copy, auditKey);
    expect(await answers(client)).toEqual(snapshot);
    expect(tb.pointInTime).toBe(5);
    tb.close();
  });

  test('the same rows and hashes as the live log, and verify passes on the copy', async () => {
    const { file } = await serviceWithTwoPeriods();
    const copy = path.join(tempDir(), 'copy.db');
    expect((await runCli(file, ['rebuild', '--until', '5', '--into', copy])).status).toBe(0);
    const [live, copied] = [await openSqliteCompany(file), await openSqliteCompany(copy)];
    expect(await copied.audit.eventsAfter(0, 1000)).toEqual(await live.audit.eventsAfter(0, 5));
    live.close();
    copied.close();
    const verify = (await runCli(copy, ['verify']));
    expect(verify.stdout).toBe(`verify: OK: hash chain of 5 events intact; ${readTableCount} read tables equal a fresh rebuild\n`);
  });

  test('--until takes a Moscow time: the log recorded within or before that second', async () => {
    const { file, auditKey, snapshot } = await serviceWithTwoPeriods();
    const before = path.join(tempDir(), 'before.db');
    expect((await runCli(file, ['rebuild', '--until', '2026-11-22 12:09:59', '--into', before])).status).toBe(0);
    const { tb, client } = await openCopy(before, auditKey);
    expect(tb.pointInTime).toBe(5);
    expect(await answers(client)).toEqual(snapshot);
    tb.close();
    const after = path.join(tempDir(), 'after.db');
    expect((await runCli(file, ['rebuild', '--until', '2026-11-22 12:10:00', '--into', after])).status).toBe(0);
    const later = await openCopy(after, auditKey);
    expect(later.tb.pointInTime).toBe(8);
    later.tb.close();
  });

  test('a copy refuses writes: 403 ERROR_READ_ONLY over HTTP, imports refused, new events refused by the database', async () => {
    // A key that may write (scope api): the copy itself refuses.
    const { file, key } = await serviceWithTwoPeriods();
    const copy = path.join(tempDir(), 'copy.db');
    expect((await runCli(file, ['rebuild', '--until', '3', '--into', copy])).status).toBe(0);
    const { tb, client } = await openCopy(copy, key);
    const token = await client.get('/api/add-product');
    expect(token.status).toBe(403);
    expect(token.body.errors).toEqual([{ code: 'ERROR_READ_ONLY', message: expect.stringContaining('point-in-time copy of the log up to seq 3') }]);
    const post = await client.post('/api/update-product-prices', { data: [{ sku: 'S1', salePrice: 1 }] }, 'any');
    expect(post.status).toBe(403);
    expect(post.body.errors[0].code).toBe('ERROR_READ_ONLY');
    expect((await client.get('/api/products')).status).toBe(200);
    const openapi = (await client.get('/api/openapi.json')).body;
    expect(openapi.paths['/api/add-product'].post.responses['403'].description).toContain('ERROR_READ_ONLY');
    expect(openapi.paths['/api/add-product'].get.responses['403'].description).toContain('ERROR_READ_ONLY');
    tb.close();

    const imported = (await runCli(copy, ['import', '-'], '{"type":"product_brand","data":{"name":"Новый"}}\n'));
    expect(imported.status).toBe(2);
    expect(imported.stderr).toContain('point-in-time copy');
    // Below the commands: the log itself refuses an append.
    const below = await openSqliteCompany(copy);
    const append = below.writer.run(() => below.log.append([{ stream: 'product_brand-9', type: 'BrandAdded', data: { id: 9, name: 'Новый', logo: null } }], { source: 'test' }));
    await expect(append).rejects.toThrow(/point-in-time/);
    expect(await below.audit.lastSeq()).toBe(3);
    below.close();
  });

  test('served by npm start: reads answer, writes are refused', async () => {
    const { file, key } = await serviceWithTwoPeriods();
    const copy = path.join(tempDir(), 'copy.db');
    expect((await runCli(file, ['rebuild', '--until', '5', '--into', copy])).status).toBe(0);
    const server = await startServer(copy, '');
    try {
      const headers = { Authorization: `Bearer ${key}` };
      const list = await fetch(`${server.url}/api/products`, { headers });
      expect(((await list.json()) as { meta: { allCount: number } }).meta.allCount).toBe(3);
      const write = await fetch(`${server.url}/api/add-product`, { headers });
      expect(write.status).toBe(403);
      expect(((await write.json()) as { errors: { code: string }[] }).errors[0].code).toBe('ERROR_READ_ONLY');
    } finally {
      await server.stop();
    }
  });

  test('usage errors: --until without --into, an existing file, a bad --until', async () => {
    const { file } = await serviceWithTwoPeriods();
    const existing = path.join(tempDir(), 'there.db');
    fs.writeFileSync(existing, '');
    const cases: [string[], string][] = [
      [['--until', '3'], '--until needs --into'],
      [['--until', '3', '--into', existing], 'exists'],
      [['--until', 'yesterday', '--into', path.join(tempDir(), 'x.db')], '--until takes'],
    ];
    for (const [args, message] of cases) {
      const run = (await runCli(file, ['rebuild', ...args]));
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr).toContain(message);
    }
  });
});
