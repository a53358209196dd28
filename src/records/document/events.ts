import { z } from 'zod';
import { defineEvent } from '../../events/define.ts';
import { kopecks } from '../../events/money.ts';

/**
 * Facts about sales, purchase and money documents. A document is addressed by its type and id (ids are unique
 * per type); its stream is `<type>-<id>`. Money is integer kopecks; times are UTC ISO. Derived figures
 * (`paid`, `tree`, balances) are never carried by an event.
 */

export const DOCUMENT_TYPES = [
  'customerorder',
  'customerinvoice',
  'sale',
  'customerreturn',
  'supplierorder',
  'supplierinvoice',
  'purchase',
  'supplierreturn',
  'cashin',
  'paymentin',
  'cashout',
  'paymentout',
  'bonus',
] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** Documents made of product lines (their `sum` comes from the lines); the others are money documents. */
const LINE_DOCUMENT_TYPES: readonly DocumentType[] = ['customerorder', 'customerinvoice', 'sale', 'customerreturn', 'supplierorder', 'supplierinvoice', 'purchase', 'supplierreturn'];
export const isLineDocument = (type: DocumentType) => LINE_DOCUMENT_TYPES.includes(type);

/**
 * How a posted document moves its contractor's balance (decisions.md §7): these raise it (the company owes the
 * contractor more, or is owed less), these lower it; orders and invoices move nothing.
 */
export const BALANCE_CREDIT_TYPES: readonly DocumentType[] = ['cashin', 'paymentin', 'bonus', 'purchase', 'customerreturn'];
export const BALANCE_DEBIT_TYPES: readonly DocumentType[] = ['cashout', 'paymentout', 'sale', 'supplierreturn'];

const documentType = z.enum(DOCUMENT_TYPES);

export const documentRef = z.object({ type: documentType, id: z.number().int() });
export type DocumentRef = z.infer<typeof documentRef>;

export const documentLine = z.object({
  pr_id: z.number().int().nullable(),
  pr_name: z.string().nullable(),
  pr_sku: z.string().nullable(),
  pr_count: z.number(),
  pr_unit: z.object({ name: z.string().nullable(), code: z.string().nullable() }).nullable(),
  pr_price: kopecks,
  pr_vat: z.number().int().nullable(),
  pr_discount: z.number(),
});
export type DocumentLine = z.infer<typeof documentLine>;

const named = z.object({ id: z.number().int(), name: z.string() });

export const bankAccount = z.object({
  id: z.number().int(),
  name: z.string(),
  bic: z.string().nullable(),
  correspondent_account: z.string().nullable(),
  current_account: z.string().nullable(),
});

export const documentFields = z.object({
  number: z.string().nullable(),
  date: z.string(),
  contractorId: z.number().int(),
  comment: z.string().nullable(),
  user: z.object({ id: z.number().int(), type: z.string(), name: z.string() }).nullable(),
  created: z.string().nullable(),
  edited: z.string().nullable(),
  sum: kopecks,
  company: z.object({ id: z.number().int(), name: z.string(), inn: z.string().nullable(), kpp: z.string().nullable(), bankAccount: bankAccount.nullable() }).nullable(),
  /** Documents with lines: warehouse, prices-include-VAT flag (0/1), fiscal flag (sale), the lines. */
  stock: named.nullable(),
  vatIncluded: z.number().int().nullable(),
  fiscal: z.number().int().nullable(),
  products: z.array(documentLine),
  /** Money documents: purpose, VAT amount, and whether a register recorded it. */
  purpose: z.string().nullable(),
  vatSum: kopecks.nullable(),
  register: z.boolean(),
});
export type DocumentFields = z.infer<typeof documentFields>;

/** A document's own state as its events leave it (derived figures, `paid` and the tree, are not part of it). */
export interface DocumentRecord {
  fields: DocumentFields;
  status: number;
  basedOn: DocumentRef[];
}

const address = { docType: documentType, id: z.number().int() };

export const DocumentRecorded = defineEvent(
  'DocumentRecorded',
  1,
  z.object({ ...address, fields: documentFields, status: z.number().int(), basedOn: z.array(documentRef) }),
);
export const DocumentRevised = defineEvent('DocumentRevised', 1, z.object({ ...address, changes: documentFields.partial() }));
export const DocumentPosted = defineEvent('DocumentPosted', 1, z.object(address));
export const DocumentUnposted = defineEvent('DocumentUnposted', 1, z.object(address));
/** The documents this one was made from, as a whole new list. */
export const DocumentLinked = defineEvent('DocumentLinked', 1, z.object({ ...address, basedOn: z.array(documentRef) }));

export const documentEvents = [DocumentRecorded, DocumentRevised, DocumentPosted, DocumentUnposted, DocumentLinked] as const;
