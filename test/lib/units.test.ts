import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { canonicalJson, canonicalValue } from '../../src/lib/canonical-json.ts';
import { formatMoscow, isCalendarDate, parseMoscow } from '../../src/lib/clock.ts';
import { fromKopecks, toKopecks } from '../../src/lib/money.ts';
import { errorCodeFor } from '../../src/lib/result.ts';

describe('money', () => {
  test('amounts become whole kopecks without float drift', () => {
    expect(toKopecks(19.99)).toBe(1999);
    expect(toKopecks(0.1 + 0.2)).toBe(30);
    expect(toKopecks(1234567.89)).toBe(123456789);
    expect(toKopecks(0)).toBe(0);
  });
  test('more than two decimals or a non-finite amount is refused', () => {
    expect(toKopecks(12.345)).toBeUndefined();
    expect(toKopecks(Number.NaN)).toBeUndefined();
    expect(toKopecks(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(toKopecks(1e300)).toBeUndefined();
  });
  test('kopecks go back to two-decimal numbers', () => {
    expect(fromKopecks(8990)).toBe(89.9);
    expect(fromKopecks(null)).toBeNull();
  });
});

describe('Moscow time', () => {
  test('formats UTC instants at UTC+3 whatever the server zone', () => {
    expect(formatMoscow(Date.parse('2026-11-22T21:30:05Z'))).toBe('2026-11-23 00:30:05');
  });
  test('parses Moscow time back and refuses impossible moments', () => {
    expect(parseMoscow('2026-11-23 00:30:05')).toBe(Date.parse('2026-11-22T21:30:05Z'));
    expect(parseMoscow('2026-02-30 10:00:00')).toBeUndefined();
    expect(parseMoscow('2026-11-23T00:30:05')).toBeUndefined();
  });
  test('calendar dates are real ones', () => {
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('2025-02-29')).toBe(false);
    expect(isCalendarDate('2025-2-1')).toBe(false);
    expect(isCalendarDate('1900-02-29')).toBe(false);
    expect(isCalendarDate('2000-02-29')).toBe(true);
    expect(isCalendarDate('2025-04-31')).toBe(false);
    expect(isCalendarDate('2025-13-01')).toBe(false);
    expect(isCalendarDate('2025-01-00')).toBe(false);
  });
  test('the arithmetic check agrees with a Date round trip on any YYYY-MM-DD', () => {
    const byDate = (text: string) => {
      const ms = Date.parse(`${text}T00:00:00Z`);
      return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === text;
    };
    const digits = (n: number, max: number) => fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, '0'));
    fc.assert(
      fc.property(digits(4, 9999), digits(2, 99), digits(2, 99), (y, m, d) => {
        const text = `${y}-${m}-${d}`;
        expect(isCalendarDate(text)).toBe(byDate(text));
      }),
      { numRuns: 20_000 },
    );
    for (const text of ['1600-02-29', '1700-02-29', '2024-02-29', '0000-02-29', '2025-06-31', '2025-12-31']) expect(isCalendarDate(text)).toBe(byDate(text));
  });
});

test('canonical JSON sorts keys at every depth', () => {
  expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}');
});

test('the canonical value is what parsing the canonical JSON gives back, key order included (events reach projectors so)', () => {
  const sample = { b: undefined, a: [undefined, Number.NaN, -0, new Date(0)], c: { f: () => 1, e: 'е' } };
  expect(JSON.stringify(canonicalValue(sample))).toBe(canonicalJson(sample));
  expect(canonicalValue(sample)).toStrictEqual(JSON.parse(canonicalJson(sample)));
  fc.assert(
    fc.property(fc.anything({ withNullPrototype: false, withBoxedValues: false, withMap: false, withSet: false, withTypedArray: false, withSparseArray: false }), (value) => {
      const text = canonicalJson(value);
      if (text === undefined) return;
      const parsed = JSON.parse(text);
      expect(JSON.stringify(canonicalValue(value))).toBe(text);
      expect(canonicalValue(value)).toStrictEqual(JSON.parse(text));
    }),
  );
});

test('a __proto__ key is kept as a key like any other, not taken as the prototype', () => {
  const value = JSON.parse('{"b":1,"__proto__":{"x":1}}');
  expect(canonicalJson(value)).toBe('{"__proto__":{"x":1},"b":1}');
  expect(canonicalJson(value)).not.toBe(canonicalJson({ b: 1 }));
  expect(Object.getPrototypeOf(canonicalValue(value))).toBe(Object.prototype);
});

test('error names follow the field name', () => {
  expect(errorCodeFor('salePrice')).toBe('ERROR_SALE_PRICE');
  expect(errorCodeFor('categoryId')).toBe('ERROR_CATEGORY_ID');
  expect(errorCodeFor('dimensionX')).toBe('ERROR_DIMENSION_X');
  expect(errorCodeFor('phone2')).toBe('ERROR_PHONE2');
  expect(errorCodeFor('products')).toBe('ERROR_PRODUCTS');
});
