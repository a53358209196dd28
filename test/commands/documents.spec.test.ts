import { describe, it } from 'vitest';
import { importLineKinds } from '../../src/commands/import-lines.ts';
import type { DocumentFields, DocumentLine, DocumentRef, DocumentType } from '../../src/records/document/events.ts';
import { contractorRecord, type Given, given, productRecord } from './decider-spec.ts';

/** Documents enter only as import lines (decisions.md §6), so each type is run as the import runs its lines. */
const importDocument = (type: DocumentType) => importLineKinds.get(type)!;

/** A document's stored fields with everything not given at its "not set" value. */
const stored = (fields: Partial<DocumentFields>): DocumentFields => ({
  number: null,
  date: '2025-03-01',
  contractorId: 1,
  comment: null,
  user: null,
  created: null,
  edited: null,
  sum: 0,
  company: null,
  stock: null,
  vatIncluded: null,
  fiscal: null,
  products: [],
  purpose: null,
  vatSum: null,
  register: false,
  ...fields,
});

const storedLine = (line: Partial<DocumentLine>): DocumentLine => ({
  pr_id: null,
  pr_name: null,
  pr_sku: null,
  pr_count: 1,
  pr_unit: null,
  pr_price: 0,
  pr_vat: null,
  pr_discount: 0,
  ...line,
});

const contractors = [contractorRecord({ id: 1 }), contractorRecord({ id: 2, name: 'ИП Смирнов', type: 'ИП' })];
const products = [productRecord({ id: 1, sku: 'TEA-1', name: 'Чай' }), productRecord({ id: 2, sku: 'COFFEE-1', name: 'Кофе' })];
/** The contractors and products the documents' lines name. */
const parties = { contractors, products };

/** Two lines, 2 × 150.50 and 1 × 99.99 at 10 % off (89.991 → 89.99): 390.99 in all. */
const linesOnWire = [
  { pr_id: 1, pr_name: 'Чай', pr_count: 2, pr_price: 150.5 },
  { pr_id: 2, pr_name: 'Кофе', pr_count: 1, pr_price: 99.99, pr_discount: 10 },
];
const linesStored = [storedLine({ pr_id: 1, pr_name: 'Чай', pr_count: 2, pr_price: 15050 }), storedLine({ pr_id: 2, pr_name: 'Кофе', pr_count: 1, pr_price: 9999, pr_discount: 10 })];

/** Every document type, with one line of it as the import gets it and the fields that line stores. */
const families: { type: DocumentType; wire: Record<string, unknown>; fields: DocumentFields }[] = [
  ...(['customerorder', 'customerinvoice', 'sale', 'customerreturn', 'supplierorder', 'supplierinvoice', 'purchase', 'supplierreturn'] as const).map((type) => ({
    type,
    wire: { id: 7, date: '2025-03-01', status: 1, contractor: { id: 1 }, sum: 390.99, products: linesOnWire },
    // Only a sale has the fiscal flag, 0 unless given.
    fields: stored({ sum: 39099, products: linesStored, fiscal: type === 'sale' ? 0 : null }),
  })),
  ...(['cashin', 'paymentin', 'cashout', 'paymentout', 'bonus'] as const).map((type) => ({
    type,
    wire: { id: 7, date: '2025-03-01', status: 1, contractor: { id: 1 }, sum: 1500.75, purpose: 'Оплата' },
    fields: stored({ sum: 150075, purpose: 'Оплата' }),
  })),
];

describe.each(families)('import line: $type', ({ type, wire, fields }) => {
  const recorded = { documents: [{ type, id: 7, fields, status: 1, basedOn: [] }], ...parties };

  it('records a new document in its own stream, with its status and an empty basedOn', () => {
    given(parties)
      .when(importDocument(type), wire)
      .thenEvents([{ stream: `${type}-7`, type: 'DocumentRecorded', data: { docType: type, id: 7, fields, status: 1, basedOn: [] }, expectedVersion: 'no_stream' }])
      .andResult({ type, id: 7 });
  });

  it('the same line for an existing document appends nothing', () => {
    given(recorded).when(importDocument(type), wire).thenNothing().andResult({ type, id: 7 });
  });

  it('un-posting and posting again are events of their own', () => {
    given(recorded).when(importDocument(type), { ...wire, status: 0 }).thenEvents([{ stream: `${type}-7`, type: 'DocumentUnposted', data: { docType: type, id: 7 } }]);
    const unposted = { ...recorded, documents: [{ ...recorded.documents[0], status: 0 }] };
    given(unposted).when(importDocument(type), wire).thenEvents([{ stream: `${type}-7`, type: 'DocumentPosted', data: { docType: type, id: 7 } }]);
  });

  it('a contractor that does not exist is ERROR_CONTRACTOR', () => {
    given(parties).when(importDocument(type), { ...wire, contractor: { id: 9 } }).thenErrors({ code: 'ERROR_CONTRACTOR', field: 'contractor' });
  });
});

describe('documents with lines: sum (decisions.md §7)', () => {
  const sale = (over: Record<string, unknown>) => ({ id: 1, date: '2025-03-01', status: 1, contractor: { id: 1 }, products: linesOnWire, ...over });

  it('without a sum, the lines make it', () => {
    given(parties)
      .when(importDocument('customerorder'), sale({}))
      .thenEvents([{ stream: 'customerorder-1', type: 'DocumentRecorded', data: { docType: 'customerorder', id: 1, fields: stored({ sum: 39099, products: linesStored }), status: 1, basedOn: [] }, expectedVersion: 'no_stream' }]);
  });

  it('each line is rounded to kopecks before they are added up', () => {
    // 1 × 0.05 at 50 % off is 2.5 kopecks, rounded to 3 on each line: 6, not the 5 of rounding the total.
    const halfKopeck = { pr_count: 1, pr_price: 0.05, pr_discount: 50 };
    given(parties)
      .when(importDocument('sale'), sale({ products: [halfKopeck, halfKopeck], sum: 0.06 }))
      .thenEvents([
        {
          stream: 'sale-1',
          type: 'DocumentRecorded',
          data: { docType: 'sale', id: 1, fields: stored({ sum: 6, fiscal: 0, products: [storedLine({ pr_price: 5, pr_discount: 50 }), storedLine({ pr_price: 5, pr_discount: 50 })] }), status: 1, basedOn: [] },
          expectedVersion: 'no_stream',
        },
      ]);
  });

  it('a fractional count is rounded on its line too', () => {
    // 1.5 × 99.99 = 149.985 → 149.99
    given(parties)
      .when(importDocument('purchase'), sale({ products: [{ pr_count: 1.5, pr_price: 99.99 }], sum: 149.99 }))
      .thenEvents([{ stream: 'purchase-1', type: 'DocumentRecorded', data: { docType: 'purchase', id: 1, fields: stored({ sum: 14999, products: [storedLine({ pr_count: 1.5, pr_price: 9999 })] }), status: 1, basedOn: [] }, expectedVersion: 'no_stream' }]);
  });

  it('a sum up to 0.01 off the lines is accepted, and the lines’ total is what is stored', () => {
    for (const sum of [390.98, 391.00]) {
      given(parties)
        .when(importDocument('sale'), sale({ sum }))
        .thenEvents([{ stream: 'sale-1', type: 'DocumentRecorded', data: { docType: 'sale', id: 1, fields: stored({ sum: 39099, fiscal: 0, products: linesStored }), status: 1, basedOn: [] }, expectedVersion: 'no_stream' }]);
    }
  });

  it('a sum more than 0.01 off the lines is ERROR_SUM', () => {
    for (const sum of [390.97, 391.01, 0]) given(parties).when(importDocument('sale'), sale({ sum })).thenErrors({ code: 'ERROR_SUM', field: 'sum' });
  });

  it('a line naming a product that does not exist is ERROR_PRODUCTS, with the line it is on', () => {
    given(parties)
      .when(importDocument('sale'), sale({ products: [linesOnWire[0], { pr_id: 999999, pr_count: 1, pr_price: 1 }] }))
      .thenErrors({ code: 'ERROR_PRODUCTS', field: 'products' });
  });

  it('a line without a product id (a service written out by hand) names no product to check', () => {
    given(parties)
      .when(importDocument('sale'), sale({ products: [{ pr_name: 'Доставка', pr_count: 1, pr_price: 300 }] }))
      .thenEvents([
        {
          stream: 'sale-1',
          type: 'DocumentRecorded',
          data: { docType: 'sale', id: 1, fields: stored({ sum: 30000, fiscal: 0, products: [storedLine({ pr_name: 'Доставка', pr_price: 30000 })] }), status: 1, basedOn: [] },
          expectedVersion: 'no_stream',
        },
      ]);
  });

  it('lists a wrong sum together with an unknown contractor', () => {
    given(parties).when(importDocument('sale'), sale({ sum: 1, contractor: { id: 9 } })).thenErrors({ code: 'ERROR_CONTRACTOR', field: 'contractor' }, { code: 'ERROR_SUM', field: 'sum' });
  });

  it('stores the warehouse, the VAT-included and fiscal flags, and every line field', () => {
    given(parties)
      .when(
        importDocument('sale'),
        sale({
          products: [{ pr_id: 1, pr_name: 'Чай', pr_sku: 'TEA-1', pr_count: 3, pr_unit: { name: 'шт', code: '796' }, pr_price: 10, pr_vat: 20, pr_discount: 0 }],
          stock: { id: 1, name: 'Основной склад' },
          vat: '1',
          fiscal: 1,
        }),
      )
      .thenEvents([
        {
          stream: 'sale-1',
          type: 'DocumentRecorded',
          data: {
            docType: 'sale',
            id: 1,
            fields: stored({
              sum: 3000,
              stock: { id: 1, name: 'Основной склад' },
              vatIncluded: 1,
              fiscal: 1,
              products: [storedLine({ pr_id: 1, pr_name: 'Чай', pr_sku: 'TEA-1', pr_count: 3, pr_unit: { name: 'шт', code: '796' }, pr_price: 1000, pr_vat: 20 })],
            }),
            status: 1,
            basedOn: [],
          },
          expectedVersion: 'no_stream',
        },
      ]);
  });
});

describe('money documents', () => {
  it('store their sum, purpose, VAT amount and register flag as given, and no lines', () => {
    given(parties)
      .when(importDocument('paymentin'), { id: 3, date: '2025-03-02', status: 0, contractor: { id: 2 }, sum: 1200, purpose: 'Оплата по счёту 5', vat: 200, register: true })
      .thenEvents([
        {
          stream: 'paymentin-3',
          type: 'DocumentRecorded',
          data: { docType: 'paymentin', id: 3, fields: stored({ date: '2025-03-02', contractorId: 2, sum: 120000, purpose: 'Оплата по счёту 5', vatSum: 20000, register: true }), status: 0, basedOn: [] },
          expectedVersion: 'no_stream',
        },
      ]);
  });

  it('must have a sum', () => {
    given(parties).when(importDocument('cashout'), { id: 3, date: '2025-03-02', status: 1, contractor: { id: 1 } }).thenErrors({ code: 'ERROR_SUM', field: 'sum' });
  });
});

describe('the common fields of a document line', () => {
  const order = { id: 1, date: '2025-03-01', status: 0, contractor: { id: 1 }, products: [] };

  it('keeps only the contractor’s id, whatever else the line says about it', () => {
    given(parties)
      .when(importDocument('customerorder'), { ...order, contractor: { id: 2, name: 'Иное имя', inn: '000' } })
      .thenEvents([{ stream: 'customerorder-1', type: 'DocumentRecorded', data: { docType: 'customerorder', id: 1, fields: stored({ contractorId: 2 }), status: 0, basedOn: [] }, expectedVersion: 'no_stream' }]);
  });

  it('turns created and edited from Moscow time into UTC', () => {
    given(parties).when(importDocument('customerorder'), { ...order, created: '2025-03-01 12:00:00', edited: '2025-03-01 02:30:00' }).thenEvents([
      {
        stream: 'customerorder-1',
        type: 'DocumentRecorded',
        data: { docType: 'customerorder', id: 1, fields: stored({ created: '2025-03-01T09:00:00.000Z', edited: '2025-02-28T23:30:00.000Z' }), status: 0, basedOn: [] },
        expectedVersion: 'no_stream',
      },
    ]);
  });

  it('refuses a date that is not on the calendar, a status other than 0 or 1, and a time that is not one', () => {
    given(parties)
      .when(importDocument('customerorder'), { ...order, date: '2025-02-30', status: 2, created: '2025-03-01T12:00:00' })
      .thenErrors({ code: 'ERROR_DATE', field: 'date' }, { code: 'ERROR_STATUS', field: 'status' }, { code: 'ERROR_CREATED', field: 'created' });
  });
});

describe('basedOn', () => {
  // customerorder 1 ← customerinvoice 1 ← sale 1 ← paymentin 1: the chain of decisions.md §6.
  const ref = (type: DocumentType, id = 1): DocumentRef => ({ type, id });
  const doc = (type: DocumentType, basedOn: DocumentRef[], fields: Partial<DocumentFields> = {}) => ({ type, id: 1, status: 1, basedOn, fields: stored(fields) });
  const chain: Given = {
    contractors,
    documents: [
      doc('customerorder', []),
      doc('customerinvoice', [ref('customerorder')]),
      doc('sale', [ref('customerinvoice')], { fiscal: 0 }),
      doc('paymentin', [ref('sale')], { sum: 0 }),
    ],
  };
  const orderLine = { id: 1, date: '2025-03-01', status: 1, contractor: { id: 1 }, products: [] };
  const payment = (id: number, basedOn: DocumentRef[]) => ({ id, date: '2025-03-01', status: 1, contractor: { id: 1 }, sum: 0, basedOn });

  it('a new document made from existing ones is recorded with that list', () => {
    given(chain)
      .when(importDocument('cashin'), payment(5, [ref('sale'), ref('customerinvoice')]))
      .thenEvents([
        { stream: 'cashin-5', type: 'DocumentRecorded', data: { docType: 'cashin', id: 5, fields: stored({}), status: 1, basedOn: [ref('sale'), ref('customerinvoice')] }, expectedVersion: 'no_stream' },
      ]);
  });

  it('ids are per type: a cashin 1 is a new document beside paymentin 1, and may be based on a document of another type with its own id', () => {
    given(chain)
      .when(importDocument('cashin'), payment(1, [ref('paymentin')]))
      .thenEvents([{ stream: 'cashin-1', type: 'DocumentRecorded', data: { docType: 'cashin', id: 1, fields: stored({}), status: 1, basedOn: [ref('paymentin')] }, expectedVersion: 'no_stream' }]);
  });

  it('a document that does not exist is ERROR_BASED_ON', () => {
    given(chain).when(importDocument('cashin'), payment(5, [ref('sale', 2)])).thenErrors({ code: 'ERROR_BASED_ON', field: 'basedOn' });
  });

  it('a document cannot be based on itself, new or existing', () => {
    given(chain).when(importDocument('cashin'), payment(5, [ref('cashin', 5)])).thenErrors({ code: 'ERROR_BASED_ON', field: 'basedOn' });
    given(chain).when(importDocument('customerorder'), { ...orderLine, basedOn: [ref('customerorder')] }).thenErrors({ code: 'ERROR_BASED_ON', field: 'basedOn' });
  });

  it('a link that would close a cycle is ERROR_BASED_ON, however long the way round', () => {
    given(chain).when(importDocument('customerorder'), { ...orderLine, basedOn: [ref('customerinvoice')] }).thenErrors({ code: 'ERROR_BASED_ON', field: 'basedOn' });
    given(chain).when(importDocument('customerorder'), { ...orderLine, basedOn: [ref('paymentin')] }).thenErrors({ code: 'ERROR_BASED_ON', field: 'basedOn' });
  });

  it('a changed list is one DocumentLinked with the whole new list', () => {
    given(chain)
      .when(importDocument('paymentin'), payment(1, [ref('sale'), ref('customerorder')]))
      .thenEvents([{ stream: 'paymentin-1', type: 'DocumentLinked', data: { docType: 'paymentin', id: 1, basedOn: [ref('sale'), ref('customerorder')] } }]);
  });

  it('an emptied list is a DocumentLinked too', () => {
    given(chain).when(importDocument('paymentin'), payment(1, [])).thenEvents([{ stream: 'paymentin-1', type: 'DocumentLinked', data: { docType: 'paymentin', id: 1, basedOn: [] } }]);
  });
});

describe('revising a document', () => {
  const comment = 'Доставка до 10:00';
  const existing: Given = { ...parties, documents: [{ type: 'sale', id: 4, status: 1, basedOn: [], fields: stored({ sum: 39099, fiscal: 0, products: linesStored, comment }) }] };
  const saleLine = { id: 4, date: '2025-03-01', status: 1, contractor: { id: 1 }, products: linesOnWire, comment };

  it('carries only the fields that changed', () => {
    given(existing)
      .when(importDocument('sale'), { ...saleLine, number: 'С-4', contractor: { id: 2 } })
      .thenEvents([{ stream: 'sale-4', type: 'DocumentRevised', data: { docType: 'sale', id: 4, changes: { number: 'С-4', contractorId: 2 } } }]);
  });

  it('changed lines carry the new lines and the new sum', () => {
    const lines = [linesOnWire[0]];
    given(existing)
      .when(importDocument('sale'), { ...saleLine, products: lines })
      .thenEvents([{ stream: 'sale-4', type: 'DocumentRevised', data: { docType: 'sale', id: 4, changes: { sum: 30100, products: [linesStored[0]] } } }]);
  });

  it('the line is the document’s full new state: a field it leaves out becomes null', () => {
    const { comment: _comment, ...withoutComment } = saleLine;
    given(existing).when(importDocument('sale'), withoutComment).thenEvents([{ stream: 'sale-4', type: 'DocumentRevised', data: { docType: 'sale', id: 4, changes: { comment: null } } }]);
  });

  it('fields, links and status changed at once are three events: revised, linked, then un-posted', () => {
    const withOrder: Given = { ...existing, documents: [...existing.documents!, { type: 'customerorder', id: 4, status: 1, basedOn: [], fields: stored({}) }] };
    given(withOrder)
      .when(importDocument('sale'), { ...saleLine, status: 0, comment: 'Самовывоз', basedOn: [{ type: 'customerorder', id: 4 }] })
      .thenEvents([
        { stream: 'sale-4', type: 'DocumentRevised', data: { docType: 'sale', id: 4, changes: { comment: 'Самовывоз' } } },
        { stream: 'sale-4', type: 'DocumentLinked', data: { docType: 'sale', id: 4, basedOn: [{ type: 'customerorder', id: 4 }] } },
        { stream: 'sale-4', type: 'DocumentUnposted', data: { docType: 'sale', id: 4 } },
      ])
      .andResult({ type: 'sale', id: 4 });
  });

  it('keeps the sum rule and the contractor rule', () => {
    given(existing).when(importDocument('sale'), { ...saleLine, sum: 500 }).thenErrors({ code: 'ERROR_SUM', field: 'sum' });
    given(existing).when(importDocument('sale'), { ...saleLine, contractor: { id: 9 } }).thenErrors({ code: 'ERROR_CONTRACTOR', field: 'contractor' });
  });
});
