import { expect, test } from 'vitest';
import { type RecordState, evolveRecord } from '../../src/records/registry.ts';
import { importRecords, line } from '../documents-fixtures.ts';
import { testService } from '../helpers.ts';

/** A small seeded generator (mulberry32): the same history on every run, a different one per seed. */
function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const below = (n: number) => Math.floor(next() * n);
  return { below, pick: <T>(items: T[]) => items[below(items.length)] };
}

test.each([1, 2])('each record folded from its stream equals its projected row, after a random history (seed %i)', async (seed) => {
  const { tb, api } = await testService();
  const { below, pick } = random(seed);
  const ok = async (response: Promise<{ status: number; text: string }>) => expect((await response).status, (await response).text).toBe(200);
  await ok(api.write('/api/add-product-category', 'category', [{ name: 'Еда' }, { name: 'Молоко', parent: 1 }, { name: 'Химия' }]));
  await ok(api.write('/api/add-product-brand', 'brand', [{ name: 'Бренд' }, { name: 'Другой', logo: 'x.png' }]));
  await ok(api.write('/api/add-contractor', 'contractors', [{ type: 'ЮЛ', name: 'ООО Старт', contactPerson: 'Иванов', phone1: '+7 916 000-00-01', bonus: { status: 1, percent: 5 } }]));

  const skus: string[] = [];
  let contractors = 1;
  let sales = 0;
  const price = () => (below(4) === 0 ? null : below(100_000) / 100);
  const productFields = () => ({ name: `Товар ${below(1000)}`, categoryId: below(4), brandId: pick([null, 1, 2]), salePrice: price(), unit: pick([null, 'шт', 'кг']) });
  const steps = [
    async () => {
      // Several in one batch: each is decided on the batch's own earlier decisions.
      const added = Array.from({ length: 1 + below(3) }, () => ({ ...productFields(), sku: `S${skus.length + below(1000) * 100}` }));
      const response = await api.write('/api/add-product', 'products', added);
      for (const result of response.body.data ?? []) if (result.id !== undefined) skus[result.id - 1] = result.sku;
    },
    async () => {
      if (skus.length === 0) return;
      const id = 1 + below(skus.length);
      const sku = below(2) === 0 ? skus[id - 1] : `R${id}-${below(1000)}`;
      const response = await api.write('/api/edit-product', 'products', [{ id, sku, ...productFields() }]);
      if (response.body.data?.[0]?.id === id) skus[id - 1] = sku;
    },
    async () => {
      if (skus.length === 0) return;
      const changes = Array.from({ length: 1 + below(3) }, () => ({ sku: pick(skus), salePrice: price(), minPrice: price() }));
      await ok(api.write('/api/update-product-prices', 'data', changes));
    },
    () => api.write('/api/edit-product-category', 'category', [{ id: 1 + below(3), name: `Группа ${below(50)}` }]),
    () => api.write('/api/edit-product-brand', 'brand', [{ id: 1 + below(2), ...(below(2) === 0 ? { name: `Бренд ${below(50)}` } : { logo: pick([null, 'y.png']) }) }]),
    async () => {
      await ok(api.write('/api/add-contractor', 'contractors', [{ type: 'ФЛ', name: `Покупатель ${below(100)}`, contactPerson: 'Петров', phone1: `+7 916 000-01-${10 + below(80)}` }]));
      contractors++;
    },
    () => api.write('/api/edit-contractor', 'contractors', [{ id: 1 + below(contractors), type: 'ЮЛ', name: `ООО ${below(100)}`, contactPerson: 'Сидоров', phone1: '+7 916 000-00-02', discount: below(20) }]),
    async () => {
      const id = below(3) === 0 && sales > 0 ? 1 + below(sales) : ++sales;
      const sale = line('sale', { id, date: '2026-11-02', status: below(2), contractor: { id: 1 + below(contractors) }, products: [{ pr_id: null, pr_name: 'Стол', pr_count: 1 + below(3), pr_price: 100 + below(900) }] });
      expect((await importRecords(tb, [sale])).failures).toEqual([]);
    },
  ];
  for (let step = 0; step < 60; step++) await pick(steps)();

  const folded = async (stream: string) => {
    let record: RecordState | undefined;
    for (const event of await tb.audit.streamVersions(stream, 1, Number.MAX_SAFE_INTEGER)) record = evolveRecord(() => record, event);
    return record;
  };
  const tables = tb.readTables() as Record<string, Record<string, unknown>[]>;
  expect(tables.products.length).toBe(skus.length);
  for (const row of tables.products) expect(await folded(`product-${row.id}`)).toEqual(JSON.parse(row.record as string));
  for (const row of tables.contractors) expect(await folded(`contractor-${row.id}`)).toEqual(JSON.parse(row.record as string));
  for (const row of tables.product_categories) expect(await folded(`category-${row.id}`)).toEqual(row);
  for (const { id, name, logo } of tables.product_brands) expect(await folded(`brand-${id}`)).toEqual({ id, name, logo });
  for (const row of tables.document_records) {
    const record = JSON.parse(row.record as string);
    expect(await folded(`${row.type}-${row.id}`)).toEqual(record);
    expect(record.status).toBe(row.status);
  }
  expect(tables.document_records.length).toBe(sales);
});
