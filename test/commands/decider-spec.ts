import { expect } from 'vitest';
import type { z } from 'zod';
import type { CommandState } from '../../src/commands/command-state.ts';
import type { Decide, Decision } from '../../src/commands/decision.ts';
import { type CodeOverrides, parseRecord } from '../../src/lib/validation.ts';
import type { BrandRecord, CategoryRecord, ProductRecord } from '../../src/events/catalogue.ts';
import type { ContractorRecord } from '../../src/events/contractors.ts';
import type { DocumentRef } from '../../src/events/documents.ts';
import { type RecordState, evolveRecord } from '../../src/events/folds.ts';
import { definitionByType } from '../../src/events/registry.ts';
import type { NewEvent } from '../../src/events/store.ts';
import type { DomainError, Result } from '../../src/lib/result.ts';

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
 * Each stream's record folded from its events (events/folds.ts, as the read model and the batch state fold them),
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
  decide: Decide<never, CommandState, R>;
}

/** Ties a schema to the decider of its output, so a spec cannot pair a record with the wrong decider. */
export const command = <S extends z.ZodType, R>(schema: S, decide: Decide<z.output<S>, CommandState, R>, codes: CodeOverrides = {}): Command<R> => ({
  schema,
  codes,
  decide,
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
      const result: Result<Decision<R>> = parsed.ok ? cmd.decide(parsed.value as never, state) : parsed;
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
