import { z } from 'zod';
import { DOCUMENT_TYPES, type DocumentFields, type DocumentRecord, type DocumentLine, type DocumentRef, type DocumentType, isLineDocument } from './events.ts';
import type { ContractorState } from '../contractor/deciders.ts';
import type { ProductState } from '../product/deciders.ts';
import type { NewEvent } from '../../events/store.ts';
import { canonicalJson } from '../../lib/canonical-json.ts';
import { parseMoscow } from '../../lib/clock.ts';
import { type DomainError, fail, ok, type Result } from '../../lib/result.ts';
import { changedFields, type Decision } from '../../commands/decision.ts';
import type { Decider } from '../../commands/lookups.ts';
import { calendarDate, money, quantity, recordId, requiredText, text, wholeNumber } from '../../lib/validation.ts';

/** What the document commands need to know to decide. */
export interface DocumentState {
  document(type: DocumentType, id: number): DocumentRecord | undefined;
}

/** A document's own record, and the contractor and products it names. */
type DocumentDeciderState = DocumentState & Pick<ContractorState, 'contractor'> & Pick<ProductState, 'product'>;

/** Σ count × price × (1 − discount/100), each line rounded to kopecks (prices in kopecks). */
export function linesSum(lines: Pick<DocumentLine, 'pr_count' | 'pr_price' | 'pr_discount'>[]): number {
  return lines.reduce((sum, l) => sum + Math.round((l.pr_count * l.pr_price * (100 - l.pr_discount)) / 100), 0);
}

const flag = () => z.union([z.literal(0), z.literal(1), z.literal('0'), z.literal('1')]).transform(Number);
/** Shown in Moscow time, stored as UTC ISO. */
const moscowTime = () =>
  z
    .string()
    .refine((s) => parseMoscow(s) !== undefined, 'must be YYYY-MM-DD HH:MM:SS (Moscow time)')
    .transform((s) => new Date(parseMoscow(s)!).toISOString());
const named = () => z.object({ id: wholeNumber(), name: requiredText() });

const commonFields = {
  id: recordId(),
  number: text().nullish(),
  date: calendarDate(),
  status: flag(),
  // Only the id counts: the document shows the contractor as the contractor is now.
  contractor: z.object({ id: recordId() }),
  comment: text(4000).nullish(),
  user: z.object({ id: wholeNumber(), type: z.enum(['admin', 'user']), name: requiredText() }).nullish(),
  created: moscowTime().nullish(),
  edited: moscowTime().nullish(),
  company: z
    .object({
      id: wholeNumber(),
      name: requiredText(),
      inn: text().nullish(),
      kpp: text().nullish(),
      bankAccount: z
        .object({ id: wholeNumber(), name: requiredText(), bic: text().nullish(), correspondent_account: text().nullish(), current_account: text().nullish() })
        .nullish(),
    })
    .nullish(),
  basedOn: z.array(z.object({ type: z.enum(DOCUMENT_TYPES), id: recordId() })).max(100).nullish(),
};

const lineInput = z.object({
  pr_id: wholeNumber().nullish(),
  pr_name: text(500).nullish(),
  pr_sku: text().nullish(),
  pr_count: quantity(),
  pr_unit: z.object({ name: text().nullish(), code: text().nullish() }).nullish(),
  pr_price: money(),
  pr_vat: wholeNumber().nullish(),
  pr_discount: z.number().min(0).max(100).nullish(),
});

export const ImportLineDocumentInput = z.object({
  ...commonFields,
  sum: money().nullish(),
  stock: named().nullish(),
  vat: flag().nullish(),
  fiscal: flag().nullish(),
  products: z.array(lineInput).max(10_000),
});

export const ImportMoneyDocumentInput = z.object({
  ...commonFields,
  sum: money(),
  purpose: text(2000).nullish(),
  vat: money().nullish(),
  register: z.boolean().nullish(),
});

type LineDocumentInput = z.output<typeof ImportLineDocumentInput>;
type MoneyDocumentInput = z.output<typeof ImportMoneyDocumentInput>;
type DocumentInput = LineDocumentInput | MoneyDocumentInput;

export interface DocumentResult {
  type: DocumentType;
  id: number;
}

/** The stored fields of a document line as given; optional fields left out are null. */
function fieldsOf(type: DocumentType, input: DocumentInput): DocumentFields {
  const common = {
    number: input.number ?? null,
    date: input.date,
    contractorId: input.contractor.id,
    comment: input.comment ?? null,
    user: input.user ?? null,
    created: input.created ?? null,
    edited: input.edited ?? null,
    company: input.company
      ? {
          id: input.company.id,
          name: input.company.name,
          inn: input.company.inn ?? null,
          kpp: input.company.kpp ?? null,
          bankAccount: input.company.bankAccount
            ? { ...input.company.bankAccount, bic: input.company.bankAccount.bic ?? null, correspondent_account: input.company.bankAccount.correspondent_account ?? null, current_account: input.company.bankAccount.current_account ?? null }
            : null,
        }
      : null,
  };
  if (isLineDocument(type)) {
    const d = input as LineDocumentInput;
    const products: DocumentLine[] = d.products.map((l) => ({
      pr_id: l.pr_id ?? null,
      pr_name: l.pr_name ?? null,
      pr_sku: l.pr_sku ?? null,
      pr_count: l.pr_count,
      pr_unit: l.pr_unit ? { name: l.pr_unit.name ?? null, code: l.pr_unit.code ?? null } : null,
      pr_price: l.pr_price,
      pr_vat: l.pr_vat ?? null,
      pr_discount: l.pr_discount ?? 0,
    }));
    return {
      ...common,
      sum: linesSum(products),
      stock: d.stock ?? null,
      vatIncluded: d.vat ?? null,
      fiscal: type === 'sale' ? (d.fiscal ?? 0) : null,
      products,
      purpose: null,
      vatSum: null,
      register: false,
    };
  }
  const m = input as MoneyDocumentInput;
  return { ...common, sum: m.sum, stock: null, vatIncluded: null, fiscal: null, products: [], purpose: m.purpose ?? null, vatSum: m.vat ?? null, register: m.register ?? false };
}

const sameRefs = (a: DocumentRef[], b: DocumentRef[]) => canonicalJson(a) === canonicalJson(b);

function referenceErrors(type: DocumentType, input: DocumentInput, fields: DocumentFields, state: DocumentDeciderState): DomainError[] {
  const errors: DomainError[] = [];
  if (!state.contractor(fields.contractorId)) errors.push({ code: 'ERROR_CONTRACTOR', field: 'contractor', message: `contractor ${fields.contractorId} does not exist` });
  // A line may name no product (a service written out by hand), but one it names must be in the catalogue.
  const known = fields.products.map((l) => l.pr_id === null || state.product(l.pr_id) !== undefined);
  const unknown = known.indexOf(false);
  if (unknown >= 0) {
    const id = fields.products[unknown].pr_id;
    errors.push({ code: 'ERROR_PRODUCTS', field: 'products', message: `products[${unknown}].pr_id: product ${id} does not exist` });
  }
  if (isLineDocument(type) && input.sum != null && Math.abs(input.sum - fields.sum) > 1) {
    errors.push({ code: 'ERROR_SUM', field: 'sum', message: `sum ${input.sum / 100} differs from the lines' total ${fields.sum / 100}` });
  }
  for (const ref of input.basedOn ?? []) {
    if (ref.type === type && ref.id === input.id) errors.push({ code: 'ERROR_BASED_ON', field: 'basedOn', message: 'a document cannot be based on itself' });
    else if (!state.document(ref.type, ref.id)) errors.push({ code: 'ERROR_BASED_ON', field: 'basedOn', message: `${ref.type} ${ref.id} does not exist` });
    else if (descendsFrom(ref, { type, id: input.id }, state)) errors.push({ code: 'ERROR_BASED_ON', field: 'basedOn', message: `${ref.type} ${ref.id} is itself based on this document` });
  }
  return onePerField(errors);
}

/** True when `doc` reaches `ancestor` through its `basedOn` chain (a link to it would close a cycle). */
function descendsFrom(doc: DocumentRef, ancestor: DocumentRef, state: DocumentDeciderState): boolean {
  const seen = new Set<string>();
  const up = [doc];
  while (up.length > 0) {
    const at = up.pop()!;
    if (at.type === ancestor.type && at.id === ancestor.id) return true;
    const key = `${at.type}:${at.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    up.push(...(state.document(at.type, at.id)?.basedOn ?? []));
  }
  return false;
}

/** One error per field is enough to fix it. */
function onePerField(errors: DomainError[]): DomainError[] {
  const seen = new Set<string | undefined>();
  return errors.filter((e) => !seen.has(e.field) && seen.add(e.field));
}

/**
 * Records a document, or revises the one with the same type and id: changed fields, posting or un-posting,
 * and a changed `basedOn` list are each their own event, and a line that changes nothing appends nothing.
 */
export function decideImportDocument(type: DocumentType, input: DocumentInput, state: DocumentDeciderState): Result<Decision<DocumentResult>> {
  const fields = fieldsOf(type, input);
  const errors = referenceErrors(type, input, fields, state);
  if (errors.length > 0) return fail(...errors);
  const stream = `${type}-${input.id}`;
  const address = { docType: type, id: input.id };
  const basedOn = (input.basedOn ?? []).map((r) => ({ type: r.type, id: r.id }));
  const current = state.document(type, input.id);
  const result = { type, id: input.id };
  if (!current) {
    return ok({ events: [{ stream, type: 'DocumentRecorded', data: { ...address, fields, status: input.status, basedOn }, expectedVersion: 'no_stream' }], result });
  }
  const events: NewEvent[] = [];
  const changes = changedFields(current.fields, fields);
  if (Object.keys(changes).length > 0) events.push({ stream, type: 'DocumentRevised', data: { ...address, changes } });
  if (!sameRefs(current.basedOn, basedOn)) events.push({ stream, type: 'DocumentLinked', data: { ...address, basedOn } });
  if (current.status !== input.status) events.push({ stream, type: input.status === 1 ? 'DocumentPosted' : 'DocumentUnposted', data: address });
  return ok({ events, result });
}

/**
 * A document line of `type`: it reads the document itself, its contractor, the products its lines name, and the
 * documents it is based on with theirs.
 */
export const documentDecider = (type: DocumentType): Decider<DocumentInput, DocumentResult> => ({
  decide: (input, state) => decideImportDocument(type, input, state),
  lookups: (input) => ({
    documents: [{ type, id: input.id }, ...(input.basedOn ?? [])],
    contractors: [input.contractor.id],
    products: 'products' in input ? input.products.flatMap((line) => (line.pr_id == null ? [] : [line.pr_id])) : [],
  }),
});
