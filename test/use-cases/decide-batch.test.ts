import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import { AddCategoryInput, ImportCategoryInput, addCategory, importCategory } from '../../src/records/category/deciders.ts';
import { AddContractorInput, EditContractorInput, ImportContractorInput, addContractor, editContractor, importContractor } from '../../src/records/contractor/deciders.ts';
import { ImportMoneyDocumentInput, documentDecider } from '../../src/records/document/deciders.ts';
import type { Decider } from '../../src/commands/lookups.ts';
import { AddProductInput, ImportProductInput, UpdatePricesInput, addProduct, importProduct, updatePrices } from '../../src/records/product/deciders.ts';
import { ImportBrandInput, importBrand } from '../../src/records/brand/deciders.ts';
import type { EventMetas, NewEvent } from '../../src/events/store.ts';
import type { EventLog } from '../../src/storage/port.ts';
import { parseRecord } from '../../src/lib/validation.ts';
import type { StateSource } from '../../src/use-cases/batch-state.ts';
import { decideBatch } from '../../src/use-cases/decide-batch.ts';
import { type Given, inMemorySource } from '../commands/decider-spec.ts';

/** An in-memory source that counts its bulk reads, by kind. */
function countingSource(given: Given) {
  const source = inMemorySource(given);
  const bulk = new Map<string, number>();
  const counted = Object.fromEntries(
    Object.entries(source).map(([name, read]) => [name, (...args: unknown[]) => (bulk.set(name, (bulk.get(name) ?? 0) + 1), (read as (...a: unknown[]) => unknown)(...args))]),
  ) as unknown as StateSource;
  return { source: counted, bulk };
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

/** The decider, counting its decisions. */
function counting<I, R>(decider: Decider<I, R>) {
  const decided: I[] = [];
  return { decided, decider: { lookups: decider.lookups, decide: (input: I, state: Parameters<Decider<I, R>['decide']>[1]) => (decided.push(input), decider.decide(input, state)) } };
}

const parsed = <S extends z.ZodType>(schema: S, records: unknown[]) =>
  records.map((r) => {
    const result = parseRecord(schema, r, {}, 'ERROR_DATA');
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    return result.value as z.output<S>;
  });

async function decide<S extends z.ZodType, R>(schema: S, decider: Decider<z.output<S>, R>, records: unknown[], source: StateSource) {
  const { log, appends } = capturingLog();
  const outcome = await decideBatch(parsed(schema, records), decider, source, log, { keyId: 1 });
  return { outcome, appends };
}

const contractor = (i: number, status: string | null = null) => ({ type: 'ФЛ', name: `К ${i}`, contactPerson: 'П', phone1: `+7 916 000-${String(i).padStart(4, '0')}`, status });
const product = (id: number, sku: string) => ({
  id, name: `Товар ${id}`, sku, categoryId: 0, brandId: null, minPrice: null, purchasePrice: null, salePrice: 100, unit: null, vat: null, order: null, code: null,
  weight: null, dimensionX: null, dimensionY: null, dimensionZ: null, parent: null, barcodes: [], additionalPrices: [], packs: [], additionalFields: [], files: [],
});

describe('a batch decided batch-level', () => {
  test('100 new contractors take the next ids in order, a new status is created once, and the events are appended in one call', async () => {
    const { source, bulk } = countingSource({ contractors: [contractorRecord(7)], contractorStatuses: ['VIP'] });
    const records = Array.from({ length: 100 }, (_, i) => contractor(i, i % 2 === 0 ? 'VIP' : 'Новый'));
    const counted = counting(addContractor);
    const { outcome, appends } = await decide(AddContractorInput, counted.decider, records, source);
    expect(outcome.ok).toBe(true);
    expect(appends).toHaveLength(1);
    const added = appends[0].events.filter((e) => e.type === 'ContractorAdded').map((e) => (e.data as { id: number }).id);
    expect(added).toEqual(Array.from({ length: 100 }, (_, i) => 8 + i));
    expect(appends[0].events.filter((e) => e.type === 'ContractorStatusCreated').map((e) => e.data)).toEqual([{ name: 'Новый' }]);
    // Each record decided once; one bulk read per kind of lookup the records name: the highest id, the statuses.
    expect(counted.decided).toHaveLength(100);
    expect(Object.fromEntries(bulk)).toEqual({ highestIds: 1, existingContractorStatuses: 1 });
  });

  test('100 price updates read their products by sku in one bulk read, none one by one', async () => {
    const products = Array.from({ length: 100 }, (_, i) => product(i + 1, `S-${i}`));
    const { source, bulk } = countingSource({ products });
    const counted = counting(updatePrices);
    const { outcome, appends } = await decide(UpdatePricesInput, counted.decider, products.map((p) => ({ sku: p.sku, salePrice: 5 })), source);
    expect(outcome.ok).toBe(true);
    expect(appends[0].events).toHaveLength(100);
    expect(counted.decided).toHaveLength(100);
    expect(Object.fromEntries(bulk)).toEqual({ productsBySku: 1 });
  });

  test("a record is decided after the batch's earlier ones: a sku taken earlier in the batch is refused, and nothing is appended", async () => {
    const { source } = countingSource({ products: [product(1, 'A')] });
    const records = [
      { name: 'Новый', sku: 'B', categoryId: 0 },
      { name: 'Занят', sku: 'A', categoryId: 0 },
      { name: 'Повтор', sku: 'B', categoryId: 0 },
    ];
    const { outcome, appends } = await decide(AddProductInput, addProduct, records, source);
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
    const { outcome, appends } = await decide(AddCategoryInput, addCategory, [{ name: 'Кофе' }, { name: 'Зерно', parent: 5 }, { name: 'Кофе' }], source);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    // The third repeats a sibling name the first took in this batch.
    expect(outcome.errors.map((e) => [e.index, e.code])).toEqual([[2, 'ERROR_CATEGORY_NAME']]);
    const ok = await decide(AddCategoryInput, addCategory, [{ name: 'Кофе' }, { name: 'Зерно', parent: 5 }], source);
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

describe('lookups declared per record', () => {
  test('a batch of import lines of products reads each kind of lookup its records name once, and decides each record once', async () => {
    const { source, bulk } = countingSource({ categories: [{ id: 3, name: 'Чай', parent: 0 }], brands: [{ id: 2, name: 'Липтон', logo: null }], products: [product(1, 'A')] });
    const counted = counting(importProduct);
    const records = [
      { name: 'Правка', sku: 'A', categoryId: 3 },
      { id: 10, name: 'Новый', sku: 'B', categoryId: 3, brandId: 2 },
      { name: 'Следующий', sku: 'C', categoryId: 0, parent: 10 },
    ];
    const { outcome, appends } = await decide(ImportProductInput, counted.decider, records, source);
    expect(outcome.ok).toBe(true);
    expect(counted.decided).toHaveLength(3);
    expect(appends[0].events.map((e) => [e.type, (e.data as { id: number }).id])).toEqual([
      ['ProductEdited', 1],
      ['ProductAdded', 10],
      ['ProductAdded', 11],
    ]);
    expect(Object.fromEntries(bulk)).toEqual({ products: 1, productsBySku: 1, categoriesWithAncestors: 1, brands: 1, highestIds: 1 });
  });

  test('a decider that reads what its lookups did not name fails loudly, not with a wrong answer', async () => {
    const { source } = countingSource({ contractors: [contractorRecord(7)] });
    const blind: Decider<z.output<typeof EditContractorInput>, unknown> = { decide: editContractor.decide, lookups: () => ({}) };
    await expect(decide(EditContractorInput, blind, [{ ...contractor(1), id: 7 }], source)).rejects.toThrow(/contractors 7/);
  });
});

/** Any mix of catalogue and contractor lines, with ids, skus and names drawn from small sets so they collide. */
const line = fc.oneof(
  fc.record({ kind: fc.constant('product' as const), id: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }), sku: fc.constantFrom('A', 'B', 'C'), name: fc.constantFrom('x', 'y'), categoryId: fc.constantFrom(0, 1, 2, 3), brandId: fc.option(fc.constantFrom(1, 2, 3), { nil: undefined }), parent: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }) }),
  fc.record({ kind: fc.constant('category' as const), id: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }), name: fc.constantFrom('Чай', 'Кофе', 'Зерно'), parent: fc.option(fc.constantFrom(0, 1, 2, 3), { nil: undefined }) }),
  fc.record({ kind: fc.constant('brand' as const), id: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }), name: fc.constantFrom('Липтон', 'Ахмад') }),
  fc.record({ kind: fc.constant('price' as const), sku: fc.constantFrom('A', 'B', 'C', 'D'), salePrice: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('contractor' as const), id: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }), name: fc.constantFrom('К', 'Л'), type: fc.constant('ФЛ'), contactPerson: fc.constant('П'), phone1: fc.constant('+7 916 000-0001'), status: fc.constantFrom('VIP', 'Новый', null) }),
  fc.record({
    kind: fc.constant('cashin' as const),
    id: fc.integer({ min: 1, max: 4 }),
    date: fc.constant('2026-01-01'),
    status: fc.constantFrom(0, 1),
    contractor: fc.record({ id: fc.integer({ min: 1, max: 3 }) }),
    sum: fc.constantFrom(100, 200),
    basedOn: fc.array(fc.record({ type: fc.constant('cashin' as const), id: fc.integer({ min: 1, max: 4 }) }), { maxLength: 2 }),
  }),
);
type Line = typeof line extends fc.Arbitrary<infer T> ? T : never;

/** One decider for the mixed lines, as the import runs them. */
const mixed: Decider<Line, unknown> = (() => {
  const deciders = { product: importProduct, category: importCategory, brand: importBrand, price: updatePrices, contractor: importContractor, cashin: documentDecider('cashin') } as const;
  const schemas = { product: ImportProductInput, category: ImportCategoryInput, brand: ImportBrandInput, price: UpdatePricesInput, contractor: ImportContractorInput, cashin: ImportMoneyDocumentInput } as const;
  const input = ({ kind, ...record }: Line) => schemas[kind].parse(record) as never;
  return { decide: (l, state) => deciders[l.kind].decide(input(l), state), lookups: (l) => deciders[l.kind].lookups(input(l)) };
})();

describe('a batch decided at once gives what its records give sent one batch each', () => {
  const start: Given = {
    categories: [{ id: 1, name: 'Чай', parent: 0 }, { id: 2, name: 'Зерно', parent: 1 }],
    brands: [{ id: 1, name: 'Липтон', logo: null }],
    products: [product(1, 'A'), product(2, 'B')],
    contractors: [contractorRecord(1), contractorRecord(2)],
    contractorStatuses: ['VIP'],
  };

  test('the same events and answers, whatever the lines', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 8 }), async (lines) => {
        // At once: every line decided against the state the earlier ones left, refused lines appending nothing.
        const together = capturingLog();
        const state = { ...start, events: [] as NewEvent[] };
        const atOnce = await decideBatch(lines, mixed, inMemorySource(start), together.log, { keyId: 1 });
        // One by one: each line a batch of its own, on the state the accepted ones before it left.
        const answers: unknown[] = [];
        const events: NewEvent[] = [];
        for (const l of lines) {
          const alone = capturingLog();
          const one = await decideBatch([l], mixed, inMemorySource(state), alone.log, { keyId: 1 });
          answers.push(one.ok ? one.value.results[0] : one.errors.map((e) => e.code));
          if (one.ok) {
            const appended = alone.appends[0]?.events ?? [];
            events.push(...appended);
            state.events.push(...appended);
          }
        }
        if (atOnce.ok) {
          expect(atOnce.value.results).toEqual(answers);
          expect(together.appends[0]?.events ?? []).toEqual(events);
        } else {
          // A batch is all or nothing: it is refused exactly when some line alone was, with that line's errors.
          const refused = answers.flatMap((answer, index) => (Array.isArray(answer) ? answer.map((code) => [index, code]) : []));
          expect(atOnce.errors.map((e) => [e.index, e.code])).toEqual(refused);
        }
      }),
      { numRuns: 300 },
    );
  });
});
