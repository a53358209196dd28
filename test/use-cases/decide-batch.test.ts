import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import { AddCategoryInput, decideAddCategory } from '../../src/commands/categories.ts';
import { AddContractorInput, decideAddContractor } from '../../src/commands/contractors.ts';
import type { Decide } from '../../src/commands/decision.ts';
import type { CommandState } from '../../src/commands/command-state.ts';
import { AddProductInput, UpdatePricesInput, decideAddProduct, decideUpdatePrices } from '../../src/commands/products.ts';
import type { EventMetas, NewEvent } from '../../src/events/store.ts';
import type { EventLog } from '../../src/storage/port.ts';
import { parseRecord } from '../../src/lib/validation.ts';
import type { StateSource } from '../../src/use-cases/batch-state.ts';
import { decideBatch } from '../../src/use-cases/decide-batch.ts';
import { type Given, inMemoryState } from '../commands/decider-spec.ts';

/** An in-memory source that counts its reads: single lookups by name, and bulk reads. */
function countingSource(given: Given) {
  const state = inMemoryState(given);
  const single = new Map<string, number>();
  const bulk = new Map<string, number>();
  const count = (counts: Map<string, number>, name: string) => counts.set(name, (counts.get(name) ?? 0) + 1);
  const counted = Object.fromEntries(
    Object.entries(state).map(([name, lookup]) => [name, async (...args: unknown[]) => (count(single, name), (lookup as (...a: unknown[]) => unknown)(...args))]),
  ) as unknown as StateSource;
  const source: StateSource = {
    ...counted,
    products: async (ids) => (count(bulk, 'products'), new Map(ids.flatMap((id) => (state.product(id) ? [[id, state.product(id)!]] : [])))),
    productsBySku: async (skus) => (count(bulk, 'productsBySku'), new Map(skus.flatMap((sku) => (state.productIdBySku(sku) ? [[sku, state.product(state.productIdBySku(sku)!)!]] : [])))),
    contractors: async (ids) => (count(bulk, 'contractors'), new Map(ids.flatMap((id) => (state.contractor(id) ? [[id, state.contractor(id)!]] : [])))),
    existingContractorStatuses: async (names) => (count(bulk, 'existingContractorStatuses'), new Set(names.filter((n) => state.contractorStatusExists(n)))),
  };
  return { source, single, bulk };
}

/** Captures what the batch appends (one call per batch). */
function capturingLog() {
  const appends: { events: NewEvent[]; meta: EventMetas }[] = [];
  const log: EventLog = {
    append: async (events, meta) => {
      appends.push({ events, meta });
      return [];
    },
  };
  return { log, appends };
}

async function decide<S extends z.ZodType, R>(schema: S, decider: Decide<z.output<S>, CommandState, R>, records: unknown[], source: StateSource) {
  const inputs = records.map((r) => {
    const parsed = parseRecord(schema, r, {}, 'ERROR_DATA');
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    return parsed.value;
  });
  const { log, appends } = capturingLog();
  const outcome = await decideBatch(inputs, decider, source, log, { keyId: 1 });
  return { outcome, appends };
}

const contractor = (i: number, status: string | null = null) => ({ type: 'ФЛ', name: `К ${i}`, contactPerson: 'П', phone1: `+7 916 000-${String(i).padStart(4, '0')}`, status });
const product = (id: number, sku: string) => ({
  id, name: `Товар ${id}`, sku, categoryId: 0, brandId: null, minPrice: null, purchasePrice: null, salePrice: 100, unit: null, vat: null, order: null, code: null,
  weight: null, dimensionX: null, dimensionY: null, dimensionZ: null, parent: null, barcodes: [], additionalPrices: [], packs: [], additionalFields: [], files: [],
});

describe('a batch decided batch-level', () => {
  test('100 new contractors take the next ids in order, a new status is created once, and the events are appended in one call', async () => {
    const { source, single, bulk } = countingSource({ contractors: [contractorRecord(7)], contractorStatuses: ['VIP'] });
    const records = Array.from({ length: 100 }, (_, i) => contractor(i, i % 2 === 0 ? 'VIP' : 'Новый'));
    const { outcome, appends } = await decide(AddContractorInput, decideAddContractor, records, source);
    expect(outcome.ok).toBe(true);
    expect(appends).toHaveLength(1);
    const added = appends[0].events.filter((e) => e.type === 'ContractorAdded').map((e) => (e.data as { id: number }).id);
    expect(added).toEqual(Array.from({ length: 100 }, (_, i) => 8 + i));
    expect(appends[0].events.filter((e) => e.type === 'ContractorStatusCreated').map((e) => e.data)).toEqual([{ name: 'Новый' }]);
    // The highest id read once; the statuses in bulk, never one by one.
    expect(single.get('nextContractorId')).toBe(1);
    expect(single.get('contractorStatusExists')).toBeUndefined();
    expect(bulk.get('existingContractorStatuses')).toBe(1);
  });

  test('100 price updates read their products by sku in one bulk read, none one by one', async () => {
    const products = Array.from({ length: 100 }, (_, i) => product(i + 1, `S-${i}`));
    const { source, single, bulk } = countingSource({ products });
    const { outcome, appends } = await decide(UpdatePricesInput, decideUpdatePrices, products.map((p) => ({ sku: p.sku, salePrice: 5 })), source);
    expect(outcome.ok).toBe(true);
    expect(appends[0].events).toHaveLength(100);
    expect([...single.keys()]).toEqual([]);
    expect(Object.fromEntries(bulk)).toEqual({ productsBySku: 1 });
  });

  test("a record is decided after the batch's earlier ones: a sku taken earlier in the batch is refused, and nothing is appended", async () => {
    const { source } = countingSource({ products: [product(1, 'A')] });
    const records = [
      { name: 'Новый', sku: 'B', categoryId: 0 },
      { name: 'Занят', sku: 'A', categoryId: 0 },
      { name: 'Повтор', sku: 'B', categoryId: 0 },
    ];
    const { outcome, appends } = await decide(AddProductInput, decideAddProduct, records, source);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.errors.map((e) => [e.index, e.code])).toEqual([
      [1, 'ERROR_SKU'],
      [2, 'ERROR_SKU'],
    ]);
    expect(appends).toEqual([]);
  });

  test('a group and then its subgroup in one batch', async () => {
    const { source } = countingSource({ categories: [{ id: 4, name: 'Чай', parent: 0 }] });
    const { outcome, appends } = await decide(AddCategoryInput, decideAddCategory, [{ name: 'Кофе' }, { name: 'Зерно', parent: 5 }, { name: 'Кофе' }], source);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    // The third repeats a sibling name the first took in this batch.
    expect(outcome.errors.map((e) => [e.index, e.code])).toEqual([[2, 'ERROR_CATEGORY_NAME']]);
    const ok = await decide(AddCategoryInput, decideAddCategory, [{ name: 'Кофе' }, { name: 'Зерно', parent: 5 }], source);
    expect(ok.outcome.ok).toBe(true);
    expect(ok.appends[0].events.map((e) => e.data)).toEqual([
      { id: 5, name: 'Кофе', parent: 0 },
      { id: 6, name: 'Зерно', parent: 5 },
    ]);
    expect(appends).toEqual([]);
  });
});

function contractorRecord(id: number) {
  return {
    id, type: 'ФЛ', name: 'Старый', contactPerson: 'П', inn: null, kpp: null, status: null, discount: null, legalAddress: null, actualAddress: null,
    phone1: '+7 916 111-11-11', phone2: null, email: null, staff: null, bonus: { status: 0, percent: null, usePercent: null, code: null }, giftCards: [], banks: [],
  };
}
