import { describe, expect, test } from 'vitest';
import { foldEvent, foldRecord } from '../../src/audit/record-fold.ts';
import { historyOfVersions, versionsFrom, whoOf } from '../../src/audit/history.ts';
import type { StoredEvent } from '../../src/events/store.ts';

let seq = 0;
/** An event of one stream as the log gives it back, recorded at the minute given (UTC, 2026-11-22). */
function event(stream: string, type: string, data: unknown, minute: number, meta: StoredEvent['meta'] = { keyId: 1 }): StoredEvent {
  seq++;
  return { seq, stream, streamVersion: seq, schemaVersion: 1, type, data, meta, recordedAt: `2026-11-22T09:${String(minute).padStart(2, '0')}:00.000Z` } as StoredEvent;
}
const at = (minute: number) => Date.parse(`2026-11-22T09:${String(minute).padStart(2, '0')}:00.000Z`);

const product = { name: 'Молоко', sku: 'M1', categoryId: 0, brandId: null, salePrice: 1000, barcodes: [] };
const sale = {
  docType: 'sale',
  id: 7,
  fields: { number: '7', date: '2026-11-20', contractorId: 3, sum: 50_000, products: [{ pr_id: 1, pr_price: 50_000 }] },
  status: 0,
  basedOn: [{ type: 'customerorder', id: 2 }],
};

describe('a record folded from its stream', () => {
  const productEvents = [
    event('product-1', 'ProductAdded', { id: 1, ...product }, 0),
    event('product-1', 'ProductEdited', { id: 1, changes: { name: 'Молоко 3,2 %', brandId: 4 } }, 10),
    event('product-1', 'ProductPricesUpdated', { id: 1, changes: { salePrice: 1250 } }, 20),
  ];

  test('as of each moment: before the first event nothing, then each event applied in turn, the address never a field', () => {
    expect(foldRecord(productEvents, at(0) - 1)).toEqual({ fields: undefined, lastEvent: undefined, events: 0 });
    expect(foldRecord(productEvents, at(5)).fields).toEqual(product);
    expect(foldRecord(productEvents, at(10)).fields).toEqual({ ...product, name: 'Молоко 3,2 %', brandId: 4 });
    const now = foldRecord(productEvents);
    expect(now.fields).toEqual({ ...product, name: 'Молоко 3,2 %', brandId: 4, salePrice: 1250 });
    expect(now).toMatchObject({ events: 3, lastEvent: { type: 'ProductPricesUpdated' } });
  });

  test('categories and brands carry their changed fields beside the id', () => {
    const brand = [event('brand-2', 'BrandAdded', { id: 2, name: 'Простоквашино', logo: null }, 0), event('brand-2', 'BrandEdited', { id: 2, logo: 'p.png' }, 1)];
    expect(foldRecord(brand).fields).toEqual({ name: 'Простоквашино', logo: 'p.png' });
  });

  test('a document: its fields with status and links; posting, unposting, revising and relinking each change just theirs', () => {
    const events = [
      event('sale-7', 'DocumentRecorded', sale, 0),
      event('sale-7', 'DocumentPosted', { docType: 'sale', id: 7 }, 1),
      event('sale-7', 'DocumentRevised', { docType: 'sale', id: 7, changes: { comment: 'возврат тары' } }, 2),
      event('sale-7', 'DocumentLinked', { docType: 'sale', id: 7, basedOn: [] }, 3),
      event('sale-7', 'DocumentUnposted', { docType: 'sale', id: 7 }, 4),
    ];
    expect(foldRecord(events, at(1)).fields).toEqual({ ...sale.fields, status: 1, basedOn: sale.basedOn });
    expect(foldRecord(events).fields).toEqual({ ...sale.fields, comment: 'возврат тары', status: 0, basedOn: [] });
  });

  test('an event changes only fields whose value it moves: equal values, however spelled, are no change', () => {
    const state = { name: 'A', bonus: { status: 1, percent: 5 } };
    const same = foldEvent(state, event('contractor-1', 'ContractorEdited', { id: 1, changes: { name: 'A', bonus: { percent: 5, status: 1 } } }, 0));
    expect(same.changes).toEqual([]);
    const moved = foldEvent(state, event('contractor-1', 'ContractorEdited', { id: 1, changes: { bonus: { status: 1, percent: 7 } } }, 0));
    expect(moved.changes).toEqual([{ field: 'bonus', before: { status: 1, percent: 5 }, after: { status: 1, percent: 7 } }]);
  });
});

describe('history', () => {
  test('each event with who caused it and each field it changed, before → after; a field new to the record has no before', async () => {
    const events = [
      event('product-1', 'ProductAdded', { id: 1, ...product }, 0, { importLine: 4 }),
      event('product-1', 'ProductPricesUpdated', { id: 1, changes: { salePrice: 1250 } }, 20, { keyId: 2 }),
      event('product-1', 'ProductEdited', { id: 1, changes: { unit: 'шт' } }, 30, { keyId: 9 }),
    ].map((e, i) => ({ ...e, streamVersion: i + 1 }));
    const history = await historyOfVersions(async (from, to) => events.slice(from - 1, to), [1, 2, 3], () => whoOf({ keyName: (id) => (id === 2 ? 'shop' : undefined) }));
    expect(history.map((h) => h.who)).toEqual(['import line 4', 'key 2 "shop"', 'key 9']);
    expect(history[0]).toMatchObject({ time: '2026-11-22 12:00:00', changes: product, before: {} });
    expect(history[1]).toMatchObject({ changes: { salePrice: 1250 }, before: { salePrice: 1000 } });
    expect(history[2]).toMatchObject({ changes: { unit: 'шт' }, before: {} });
  });
});

describe('a page of a long history', () => {
  test('the entries of the versions asked for, each before → after, the events before them read 250 at a time', async () => {
    const events = [
      event('product-1', 'ProductAdded', { id: 1, ...product }, 0),
      ...Array.from({ length: 2_499 }, (_, i) => event('product-1', 'ProductPricesUpdated', { id: 1, changes: { salePrice: 1001 + i } }, 1)),
    ].map((e, i) => ({ ...e, streamVersion: i + 1 }));
    const reads: [number, number][] = [];
    const read = async (from: number, to: number) => {
      reads.push([from, to]);
      return events.slice(from - 1, to);
    };
    const page = await historyOfVersions(read, versionsFrom(2_001, 2_003), () => whoOf({ keyName: () => undefined }));
    expect(page.map((h) => [h.streamVersion, h.before, h.changes])).toEqual([
      [2_001, { salePrice: 2_999 }, { salePrice: 3_000 }],
      [2_002, { salePrice: 3_000 }, { salePrice: 3_001 }],
      [2_003, { salePrice: 3_001 }, { salePrice: 3_002 }],
    ]);
    expect(reads).toEqual([...Array.from({ length: 8 }, (_, i): [number, number] => [i * 250 + 1, (i + 1) * 250]), [2_001, 2_003]]);
  });
});
