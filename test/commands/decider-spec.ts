import { expect } from 'vitest';
import type { z } from 'zod';
import type { CommandState } from '../../src/commands/command-state.ts';
import type { Decide, Decision } from '../../src/commands/decision.ts';
import { type CodeOverrides, parseRecord } from '../../src/lib/validation.ts';
import type { ContractorRecord } from '../../src/events/contractors.ts';
import type { DocumentRef } from '../../src/events/documents.ts';
import { definitionByType } from '../../src/events/registry.ts';
import type { NewEvent } from '../../src/events/store.ts';
import type { DomainError, Result } from '../../src/lib/result.ts';

/**
 * Deciders specified on their own: given(records) → when(command, wire input) → then events / errors / nothing.
 * No database: the state is an in-memory CommandState over plain records, typed from the interface itself, so
 * a change of CommandState breaks this file instead of silently passing.
 */

type Row<F extends (...args: never[]) => unknown> = NonNullable<ReturnType<F>>;

/** What a spec starts from: the records as the read model would hand them to the deciders. */
export interface Given {
  products?: Row<CommandState['product']>[];
  categories?: Row<CommandState['category']>[];
  brands?: Row<CommandState['brand']>[];
  contractors?: Row<CommandState['contractor']>[];
  contractorStatuses?: string[];
  documents?: (Row<CommandState['document']> & DocumentRef)[];
}

const maxId = (rows: { id: number }[]) => rows.reduce((max, r) => Math.max(max, r.id), 0);
// The real state parses each record from JSON on every read, so a decider never holds the stored object.
const copy = <T>(value: T | undefined): T | undefined => (value === undefined ? undefined : structuredClone(value));

/** Lookups by exact value and ids after the highest, as the read-model queries answer them (projections/state.ts). */
export function inMemoryState(given: Given = {}): CommandState {
  const { products = [], categories = [], brands = [], contractors = [], contractorStatuses = [], documents = [] } = given;
  const lowest = <T extends { id: number }>(rows: T[], match: (row: T) => boolean) => rows.filter(match).sort((a, b) => a.id - b.id)[0]?.id;
  return {
    product: (id) => copy(products.find((p) => p.id === id)),
    productIdBySku: (sku) => lowest(products, (p) => p.sku === sku),
    nextProductId: () => maxId(products) + 1,
    category: (id) => copy(categories.find((c) => c.id === id)),
    categoryIdBySiblingName: (parent, name) => lowest(categories, (c) => c.parent === parent && c.name === name),
    nextCategoryId: () => maxId(categories) + 1,
    brand: (id) => copy(brands.find((b) => b.id === id)),
    brandIdByName: (name) => lowest(brands, (b) => b.name === name),
    nextBrandId: () => maxId(brands) + 1,
    contractor: (id) => copy(contractors.find((c) => c.id === id)),
    nextContractorId: () => maxId(contractors) + 1,
    contractorStatusExists: (name) => contractorStatuses.includes(name),
    document: (type, id) => {
      const found = documents.find((d) => d.type === type && d.id === id);
      return found && copy({ fields: found.fields, status: found.status, basedOn: found.basedOn });
    },
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
