import { z } from 'zod';
import { contractorFields } from '../records/contractor/events.ts';
import { productFields } from '../records/product/events.ts';
import { DOCUMENT_TYPES } from '../records/document/events.ts';

/**
 * What the API answers, as zod schemas: the OpenAPI document's response components are generated from them, and a
 * test parses the app's real answers with them, so the document cannot drift from the bytes served. Money is in
 * rubles (the record schemas' kopecks, shown divided by 100: still numbers). Each has an `id`: its component's name.
 */

const id = z.number().int();
const named = z.object({ id, name: z.string() }).meta({ id: 'Named' });

const pageMeta = z.object({ allCount: z.number().int(), count: z.number().int(), limit: z.number().int(), offset: z.number().int() }).meta({ id: 'PageMeta' });

/** `{meta, data: [records]}`: a page of a list. */
const page = <T extends z.ZodType>(name: string, record: T) => z.object({ meta: pageMeta, data: z.array(record) }).meta({ id: name });
/** `{data: record}`: one record. */
const one = <T extends z.ZodType>(name: string, record: T) => z.object({ data: record }).meta({ id: name });

const { name, sku, unit, vat, order, code, weight, dimensionX, dimensionY, dimensionZ, parent, barcodes } = productFields.shape;
/** A price in rubles (the record keeps kopecks). */
const rubles = z.number().nullable();
const [minPrice, purchasePrice, salePrice] = [rubles, rubles, rubles];
export const productListItem = z
  .object({ id, name, sku, minPrice, purchasePrice, salePrice, unit, vat, order, code, weight, dimensionX, dimensionY, dimensionZ, parent, brand: named.nullable(), category: named, barcodes })
  .meta({ id: 'ProductListItem' });
export const product = productListItem
  .extend({
    additionalPrices: z.array(z.object({ name: z.string(), price: z.number() })),
    packs: productFields.shape.packs,
    additionalFields: productFields.shape.additionalFields,
    files: productFields.shape.files,
  })
  .meta({ id: 'Product' });

export const brand = z.object({ id, name: z.string(), logo: z.string().nullable() }).meta({ id: 'Brand' });
type CategoryNode = { id: number; name: string; children: CategoryNode[] };
export const category: z.ZodType<CategoryNode> = z
  .object({ id, name: z.string(), get children() { return z.array(category); } })
  .meta({ id: 'Category' });

export const contractor = contractorFields
  .omit({ bonus: true })
  .extend({ id, balance: z.number(), bonus: contractorFields.shape.bonus.extend({ balance: z.number() }) })
  .meta({ id: 'Contractor' });

/** What every document shows; each type adds its own fields (lines, company, paid, the dependency tree). */
export const document = z
  .object({
    id,
    type: z.enum(DOCUMENT_TYPES),
    status: z.number().int(),
    number: z.string().nullable(),
    date: z.string(),
    contractor: z.object({ id, type: z.string().nullable(), name: z.string().nullable(), contactPerson: z.string().nullable(), inn: z.string().nullable(), kpp: z.string().nullable() }),
    sum: z.number(),
    tree: z.unknown(),
  })
  .loose()
  .meta({ id: 'Document' });

export const logEvent = z
  .object({ seq: id, stream: z.string(), streamVersion: id, type: z.string(), schemaVersion: id, recordedAt: z.string(), meta: z.record(z.string(), z.unknown()), data: z.unknown(), hash: z.string() })
  .meta({ id: 'LogEvent' });
export const historyEntry = z
  .object({ seq: id, streamVersion: id, type: z.string(), time: z.string(), recordedAt: z.string(), who: z.string(), changes: z.record(z.string(), z.unknown()), before: z.record(z.string(), z.unknown()) })
  .meta({ id: 'HistoryEntry' });
/** The company's details in force on a day, as `tradebook company set` recorded them. */
const companyDetails = z
  .object({ from: z.string(), name: z.string(), inn: z.string(), kpp: z.string().nullable(), address: z.string().nullable(), director: z.string().nullable(), accountant: z.string().nullable() })
  .meta({ id: 'CompanyDetails' });
export const statement = z
  .object({
    contractor: named,
    /** The company's details in force on dateTo; null before any are set. */
    company: companyDetails.nullable(),
    dateFrom: z.string(),
    dateTo: z.string(),
    opening: z.number(),
    lines: z.array(z.object({ date: z.string(), type: z.enum(DOCUMENT_TYPES), id, number: z.string().nullable(), debit: z.number().nullable(), credit: z.number().nullable(), balance: z.number() })),
    debit: z.number(),
    credit: z.number(),
    closing: z.number(),
  })
  .meta({ id: 'Statement' });

/** Each read's answer by its path (and method, where a path has two). */
export const readResponses = {
  products: page('ProductPage', productListItem),
  product: one('ProductAnswer', product),
  brands: z.object({ meta: z.object({ allCount: z.number().int() }), data: z.array(brand) }).meta({ id: 'BrandList' }),
  categories: z.object({ meta: z.object({ allCount: z.number().int() }), data: z.array(category) }).meta({ id: 'CategoryTree' }),
  contractors: page('ContractorPage', contractor),
  contractor: one('ContractorAnswer', contractor),
  documents: page('DocumentPage', document),
  document: one('DocumentAnswer', document),
  events: z
    .object({ meta: z.object({ after: z.number().int(), limit: z.number().int(), count: z.number().int(), next: z.number().int() }), data: z.array(logEvent) })
    .meta({ id: 'EventPage' }),
  history: z
    .object({ meta: z.object({ stream: z.string(), after: z.number().int(), limit: z.number().int(), count: z.number().int(), next: z.number().int() }), data: z.array(historyEntry) })
    .meta({ id: 'History' }),
  statement: one('StatementAnswer', statement),
};

export const accessToken = z
  .object({ data: z.object({ access_token: z.string(), expired: z.string().describe('YYYY-MM-DD HH:MM:SS, Moscow time') }) })
  .meta({ id: 'AccessToken' });

/** A write's answer for each record of its batch, in order. */
export const writeResults = {
  named: z.object({ data: z.array(named) }).meta({ id: 'NamedResults' }),
  product: z.object({ data: z.array(z.object({ id, sku: z.string() })) }).meta({ id: 'ProductResults' }),
  prices: z.object({ data: z.array(z.object({ id, sku: z.string(), minPrice, purchasePrice, salePrice })) }).meta({ id: 'PriceResults' }),
};
