import { expect } from 'vitest';
import type { z } from 'zod';
import type { CommandState } from '../../src/records/registry.ts';
import type { Decision } from '../../src/commands/decision.ts';
import type { Decider } from '../../src/commands/lookups.ts';
import { type CodeOverrides, parseRecord } from '../../src/lib/validation.ts';
import type { ProductRecord } from '../../src/records/product/events.ts';
import type { BrandRecord } from '../../src/records/brand/events.ts';
import type { CategoryRecord } from '../../src/records/category/events.ts';
import type { ContractorRecord } from '../../src/records/contractor/events.ts';
import type { DocumentRef } from '../../src/records/document/events.ts';
import { type RecordState, evolveRecord } from '../../src/records/registry.ts';
import { definitionByType } from '../../src/events/registry.ts';
import type { NewEvent } from '../../src/events/store.ts';
import type { DomainError, Result } from '../../src/lib/result.ts';
import type { StateSource } from '../../src/use-cases/batch-state.ts';

/**
 * Deciders specified on their own: given(records, events) → when(command, wire input) → then events / errors /
 * nothing. No database: the state is an in-memory CommandState over records folded from events, typed from the
 * interface itself, so a change of CommandState breaks this file instead of silently passing.
 */

type Row<F extends (...args: never[]) => unknown> = NonNullable<ReturnType<F>>;

/** What a spec starts from: the records as the read model would hand them to the deciders, and events after them. */
export interface Given {
  products?: Row<CommandState['product']>[];
  categories?: Row<CommandState['category']>[];
  brands?: Row<CommandState['brand']>[];
  contractors?: Row<CommandState['contractor']>[];
  contractorStatuses?: string[];
  documents?: (Row<CommandState['document']> & DocumentRef)[];
  /** Appended after the records were created, and folded into them as the read model would. */
  events?: NewEvent[];
}

/** The given records as the events that created them, in their streams. */
function creations(given: Given): NewEvent[] {
  const { products = [], categories = [], brands = [], contractors = [], contractorStatuses = [], documents = [] } = given;
  return [
    ...categories.map((data): NewEvent => ({ stream: `category-${data.id}`, type: 'CategoryAdded', data })),
    ...brands.map((data): NewEvent => ({ stream: `brand-${data.id}`, type: 'BrandAdded', data })),
    ...products.map((data): NewEvent => ({ stream: `product-${data.id}`, type: 'ProductAdded', data })),
    ...contractorStatuses.map((name): NewEvent => ({ stream: `contractor-status-${name}`, type: 'ContractorStatusCreated', data: { name } })),
    ...contractors.map((data): NewEvent => ({ stream: `contractor-${data.id}`, type: 'ContractorAdded', data })),
    ...documents.map(({ type, id, fields, status, basedOn }): NewEvent => ({ stream: `${type}-${id}`, type: 'DocumentRecorded', data: { docType: type, id, fields, status, basedOn } })),
  ];
}

const maxId = (rows: { id: number }[]) => rows.reduce((max, r) => Math.max(max, r.id), 0);
// The real state parses each record from JSON on every read, so a decider never holds the stored object.
const copy = <T>(value: T | undefined): T | undefined => (value === undefined ? undefined : structuredClone(value));

/**
 * Each stream's record folded from its events (records/registry.ts, as the read model and the batch state fold them),
 * with lookups by exact value and ids after the highest, as the read-model queries answer them.
 */
export function inMemoryState(given: Given = {}): CommandState {
  const records = new Map<string, RecordState>();
  for (const event of [...creations(given), ...(given.events ?? [])]) {
    const record = evolveRecord(() => records.get(event.stream), event);
    if (record !== undefined) records.set(event.stream, record);
  }
  const kind = <T>(stream: RegExp) => [...records].filter(([name]) => stream.test(name)).map(([, record]) => record as T);
  const products = () => kind<ProductRecord>(/^product-\d+$/);
  const categories = () => kind<CategoryRecord>(/^category-\d+$/);
  const brands = () => kind<BrandRecord>(/^brand-\d+$/);
  const contractors = () => kind<ContractorRecord>(/^contractor-\d+$/);
  const lowest = <T extends { id: number }>(rows: T[], match: (row: T) => boolean) => rows.filter(match).sort((a, b) => a.id - b.id)[0]?.id;
  const record = <T>(stream: string) => copy(records.get(stream) as T | undefined);
  return {
    product: (id) => record(`product-${id}`),
    productIdBySku: (sku) => lowest(products(), (p) => p.sku === sku),
    nextProductId: () => maxId(products()) + 1,
    category: (id) => record(`category-${id}`),
    categoryIdBySiblingName: (parent, name) => lowest(categories(), (c) => c.parent === parent && c.name === name),
    nextCategoryId: () => maxId(categories()) + 1,
    brand: (id) => record(`brand-${id}`),
    brandIdByName: (name) => lowest(brands(), (b) => b.name === name),
    nextBrandId: () => maxId(brands()) + 1,
    contractor: (id) => record(`contractor-${id}`),
    nextContractorId: () => maxId(contractors()) + 1,
    contractorStatusExists: (name) => records.has(`contractor-status-${name}`),
    document: (type, id) => record(`${type}-${id}`),
  };
}

/** A command as the HTTP layer and the import run it: the record's schema, its error names, its decider. */
export interface Command<R> {
  schema: z.ZodType;
  codes: CodeOverrides;
  decider: Decider<never, R>;
}

/** Ties a schema to the decider of its output, so a spec cannot pair a record with the wrong decider. */
export const command = <S extends z.ZodType, R>(schema: S, decider: Decider<z.output<S>, R>, codes: CodeOverrides = {}): Command<R> => ({
  schema,
  codes,
  decider: decider as Decider<never, R>,
});

export interface ExpectedError {
  code: string;
  field?: string;
}

export interface Outcome<R> {
  /** Exactly these events, in this order, each a valid event of the catalogue. */
  thenEvents(expected: NewEvent[]): { andResult(expected: R): void };
  /** Accepted, and not a single event appended. */
  thenNothing(): { andResult(expected: R): void };
  /** Refused with exactly these errors (code and field), in this order; none without a message. */
  thenErrors(...expected: ExpectedError[]): void;
}

function describeErrors(errors: DomainError[]): string {
  return errors.map((e) => `${e.code}${e.field ? ` (${e.field})` : ''}: ${e.message}`).join('; ');
}

/** Every event must be one the store would append unchanged: known type, data exactly as its schema parses it. */
function expectCatalogueEvents(events: NewEvent[]): void {
  for (const event of events) {
    const definition = definitionByType.get(event.type);
    expect(definition, `unknown event type ${event.type}`).toBeDefined();
    expect(definition!.schema.parse(event.data), `${event.type} carries data its schema would change`).toEqual(event.data);
  }
}

export function given(records: Given = {}) {
  return {
    /** Parses `wire` as the HTTP layer and the import do, then decides it against the given records. */
    when<R>(cmd: Command<R>, wire: unknown): Outcome<R> {
      const state = inMemoryState(records);
      const parsed = parseRecord(cmd.schema, wire, cmd.codes, 'ERROR_DATA');
      const result: Result<Decision<R>> = parsed.ok ? cmd.decider.decide(parsed.value as never, state) : parsed;
      const accepted = (): Decision<R> => {
        if (!result.ok) expect.fail(`expected a decision, got errors: ${describeErrors(result.errors)}`);
        return result.value;
      };
      const andResult = (decision: Decision<R>) => ({ andResult: (expected: R) => expect(decision.result).toEqual(expected) });
      return {
        thenEvents(expected) {
          const decision = accepted();
          expect(decision.events).toStrictEqual(expected);
          expectCatalogueEvents(decision.events);
          return andResult(decision);
        },
        thenNothing() {
          const decision = accepted();
          expect(decision.events).toEqual([]);
          return andResult(decision);
        },
        thenErrors(...expected) {
          if (result.ok) expect.fail(`expected errors, got events: ${JSON.stringify(result.value.events)}`);
          expect(result.errors.map(({ code, field }) => ({ code, ...(field !== undefined && { field }) }))).toEqual(expected);
          for (const e of result.errors) expect(e.message, `${e.code} has no message`).not.toBe('');
        },
      };
    },
  };
}

/** A contractor record with every field at its "not set" value, as an add without optional fields stores it. */
export function contractorRecord(fields: Partial<ContractorRecord> & Pick<ContractorRecord, 'id'>): ContractorRecord {
  return {
    type: 'ЮЛ',
    name: 'ООО Вектор',
    contactPerson: 'Петров Пётр',
    inn: null,
    kpp: null,
    status: null,
    discount: null,
    legalAddress: null,
    actualAddress: null,
    phone1: '+7 916 000-00-01',
    phone2: null,
    email: null,
    staff: null,
    bonus: { status: 0, percent: null, usePercent: null, code: null },
    giftCards: [],
    banks: [],
    ...fields,
  };
}

/**
 * The bulk reads a batch's lookups are answered from (projections/bulk-reads.ts), over the same in-memory records
 * as `inMemoryState`: what the read tables would answer, for the batch runner's own tests.
 */
export function inMemorySource(given: Given = {}): StateSource {
  const state = inMemoryState(given);
  const all = <T extends { id: number }>(read: (id: number) => T | undefined, highest: () => number) =>
    Array.from({ length: highest() - 1 }, (_, i) => read(i + 1)).filter((row): row is T => row !== undefined);
  const found = <K, V>(keys: K[], read: (key: K) => V | undefined) => new Map(keys.flatMap((key) => (read(key) === undefined ? [] : [[key, read(key)!] as const])));
  const up = <K, V>(start: K[], read: (key: K) => V | undefined, next: (value: V) => K[], name: (key: K) => string) => {
    const seen = new Map<string, V>();
    const pending = [...start];
    while (pending.length > 0) {
      const key = pending.pop()!;
      const value = read(key);
      if (value === undefined || seen.has(name(key))) continue;
      seen.set(name(key), value);
      pending.push(...next(value));
    }
    return [...seen.values()];
  };
  return {
    products: async (ids) => found(ids, state.product),
    productsBySku: async (skus) => found(skus, (sku) => { const id = state.productIdBySku(sku); return id === undefined ? undefined : state.product(id); }),
    categoriesWithAncestors: async (ids) => up(ids, state.category, (c) => (c.parent === 0 ? [] : [c.parent]), String),
    categoriesByName: async (names) => all(state.category, state.nextCategoryId).filter((c) => names.includes(c.name)),
    brands: async (ids) => [...found(ids, state.brand).values()],
    brandsByName: async (names) => all(state.brand, state.nextBrandId).filter((b) => names.includes(b.name)),
    contractors: async (ids) => found(ids, state.contractor),
    existingContractorStatuses: async (names) => new Set(names.filter(state.contractorStatusExists)),
    documentsWithBases: async (refs) =>
      up(refs, (ref) => { const record = state.document(ref.type, ref.id); return record && { ...ref, record }; }, (row) => row.record.basedOn, (ref) => `${ref.type}-${ref.id}`),
    highestIds: async (tables) => {
      const next = { products: state.nextProductId, categories: state.nextCategoryId, brands: state.nextBrandId, contractors: state.nextContractorId };
      return new Map(tables.map((table) => [table, next[table]() - 1]));
    },
  };
}

/** A product as an add of only the required fields stores it. */
export const productRecord = (fields: Partial<ProductRecord> & Pick<ProductRecord, 'id' | 'sku'>): ProductRecord => ({
  name: `Товар ${fields.sku}`,
  categoryId: 0,
  brandId: null,
  minPrice: null,
  purchasePrice: null,
  salePrice: null,
  unit: null,
  vat: null,
  order: null,
  code: null,
  weight: null,
  dimensionX: null,
  dimensionY: null,
  dimensionZ: null,
  parent: null,
  barcodes: [],
  additionalPrices: [],
  packs: [],
  additionalFields: [],
  files: [],
  ...fields,
});
