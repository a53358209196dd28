import { describe, expect, test, vi } from 'vitest';
import { eventDefinitions } from '../../src/events/registry.ts';
import { toStoredEvent } from '../../src/events/store.ts';
import { upcast, upcasters } from '../../src/events/upcasters.ts';
import { testService } from '../helpers.ts';
import { runCliHere as runCli } from '../cli-in-process.ts';
import { appendOldRow } from '../storage/sqlite/at-rest.ts';

// The commands run in this process (they took seconds each as processes on a busy machine).
vi.setConfig({ testTimeout: 120_000 });

describe('upcasters', () => {
  test('every event type at version n has a step from each version before it', () => {
    for (const definition of eventDefinitions) {
      for (let version = 1; version < definition.schemaVersion; version++) {
        expect(upcasters.some((u) => u.type === definition.type && u.fromVersion === version), `${definition.type} v${version}`).toBe(true);
      }
    }
  });

  test('ProductPricesUpdated v1 is read as v2; v2 data is left as it is', () => {
    expect(upcast('ProductPricesUpdated', 1, { id: 3, salePrice: 1250, minPrice: null })).toEqual({ id: 3, changes: { salePrice: 1250, minPrice: null } });
    expect(upcast('ProductPricesUpdated', 2, { id: 3, changes: { salePrice: 1 } })).toEqual({ id: 3, changes: { salePrice: 1 } });
    expect(upcast('ProductAdded', 1, { id: 1 })).toEqual({ id: 1 });
  });

  test('the price command writes the new shape, as schema version 2', async () => {
    const { api, tb } = await testService();
    await api.write('/api/add-product', 'products', [{ name: 'Молоко', sku: 'M1', categoryId: 0 }]);
    await api.write('/api/update-product-prices', 'data', [{ sku: 'M1', salePrice: 99.9 }]);
    const [row] = await tb.audit.eventsAfter(0, 10, { type: 'ProductPricesUpdated' });
    expect(row.schema_version).toBe(2);
    expect(JSON.parse(row.data)).toEqual({ id: 1, changes: { salePrice: 9990 } });
  });

  test('an old-version event in the log still rebuilds correctly, and verify accepts the result', async () => {
    const { api, tb, file } = await testService();
    await api.write('/api/add-product', 'products', [{ name: 'Молоко', sku: 'M1', categoryId: 0, salePrice: 10 }]);
    appendOldRow(file, { stream: 'product-1', type: 'ProductPricesUpdated', schemaVersion: 1, data: '{"id":1,"purchasePrice":700,"salePrice":1250}' });

    const old = toStoredEvent((await tb.audit.eventsAfter(1, 1))[0]);
    expect(old).toMatchObject({ schemaVersion: 1, data: { id: 1, changes: { purchasePrice: 700, salePrice: 1250 } } });
    // Followers read it in its current shape too, its money in rubles.
    expect((await api.get('/api/changes?after=1')).body.data[0]).toMatchObject({ seq: 2, type: 'ProductPricesUpdated', data: { id: 1, changes: { purchasePrice: 7, salePrice: 12.5 } } });

    await tb.rebuild();
    const product = (await api.get('/api/product?id=1')).body.data;
    expect(product).toMatchObject({ purchasePrice: 7, salePrice: 12.5, name: 'Молоко' });
    tb.close();

    const verify = (await runCli(file, ['verify']));
    expect(verify.stdout).toMatch(/^verify: OK: hash chain of 2 events intact/);
    // The log still holds the row as it was written; history tells it in the current shape.
    const stored = JSON.parse((await runCli(file, ['events', '--after', '1'])).stdout);
    expect(stored).toMatchObject({ schemaVersion: 1, data: { id: 1, purchasePrice: 700, salePrice: 1250 } });
    const history = JSON.parse((await runCli(file, ['history', 'product-1', '--json'])).stdout);
    expect(history[1]).toMatchObject({ type: 'ProductPricesUpdated', who: 'import line 7', changes: { purchasePrice: 700, salePrice: 1250 } });
  });
});
