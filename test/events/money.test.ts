import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { eventDefinitions } from '../../src/events/registry.ts';
import { kopecks, mapMoney, moneyMembers } from '../../src/events/money.ts';

describe('money read off an event schema', () => {
  const schema = z.object({
    id: z.number().int(),
    total: kopecks,
    lines: z.array(z.object({ name: z.string(), price: kopecks.nullable() })),
    changes: z.object({ discount: kopecks, note: z.string() }).partial(),
  });

  test('members of money at any depth, under nullable, optional and arrays; every other member apart', () => {
    const { money, other } = moneyMembers(schema);
    expect([...money].sort()).toEqual(['discount', 'price', 'total']);
    expect([...other].sort()).toEqual(['changes', 'id', 'lines', 'name', 'note']);
  });

  test('a number that is not this schema is not money, however it is named', () => {
    expect([...moneyMembers(z.object({ price: z.number().int() })).money]).toEqual([]);
  });

  test('a schema whose members this reading cannot follow is refused, not misread', () => {
    expect(() => moneyMembers(z.object({ either: z.union([z.object({ sum: kopecks }), z.string()]) }))).toThrow(/union/);
    expect(() => moneyMembers(z.object({ byName: z.record(z.string(), kopecks) }))).toThrow(/record/);
  });

  test('every amount converted, absent and null members left as they are', () => {
    const data = { id: 7, total: 150, lines: [{ name: 'a', price: 5 }, { name: 'b', price: null }], changes: { note: 'x' } };
    expect(mapMoney(schema, data, (k) => k / 100)).toEqual({ id: 7, total: 1.5, lines: [{ name: 'a', price: 0.05 }, { name: 'b', price: null }], changes: { note: 'x' } });
  });

  test("every event type's schema can be read, and some hold money", () => {
    const holding = eventDefinitions.filter((d) => moneyMembers(d.schema).money.size > 0).map((d) => d.type);
    expect(holding).toEqual(expect.arrayContaining(['ProductAdded', 'ProductEdited', 'ProductPricesUpdated', 'DocumentRecorded', 'DocumentRevised']));
  });
});
