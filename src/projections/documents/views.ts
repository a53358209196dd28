import type { ContractorRecord } from '../../records/contractor/events.ts';
import type { DocumentFields, DocumentType } from '../../records/document/events.ts';
import { formatMoscow } from '../../lib/clock.ts';
import { fromKopecks } from '../../lib/money.ts';

/** How documents are shown: display names, the list JSON of each kind, the dependency tree's nodes. */

const TYPE_NAMES: Record<DocumentType, string> = {
  customerorder: 'Заказ покупателя',
  customerinvoice: 'Счет покупателя',
  sale: 'Отгрузка',
  customerreturn: 'Возврат покупателя',
  supplierorder: 'Заказ поставщику',
  supplierinvoice: 'Счет поставщика',
  purchase: 'Закупка',
  supplierreturn: 'Возврат поставщику',
  cashin: 'Приходный ордер',
  paymentin: 'Входящий платеж',
  cashout: 'Расходный ордер',
  paymentout: 'Исходящий платеж',
  bonus: 'Оплата из бонусов',
};

const CASH_TYPES: readonly DocumentType[] = ['cashin', 'cashout'];
const PAYMENT_TYPES: readonly DocumentType[] = ['paymentin', 'paymentout'];

/** A document's display name; money documents recorded at a register are named after the register's till. */
export function documentName(type: DocumentType, register: boolean): string {
  if (register && CASH_TYPES.includes(type)) return 'Касса (Наличные)';
  if (register && PAYMENT_TYPES.includes(type)) return 'Касса (Карточка)';
  return TYPE_NAMES[type];
}

const moscow = (iso: string | null) => (iso === null ? null : formatMoscow(Date.parse(iso)));

/**
 * A dependency tree node is `{id, type, name, created, status, isThis, childes}`. Trees are written as JSON
 * text: a component's trees are re-written for every document in it, so each node's label is made once
 * (`treeNodeHead`) and closed with its `isThis` and children (`treeNodeJson`).
 */
export function treeNodeHead(type: DocumentType, id: number, fields: DocumentFields, status: number): string {
  return treeNodeHeadAt(type, id, fields.register, fields.created === null ? null : Date.parse(fields.created), status);
}

/** `treeNodeHead` from the moment its `created` parses to (null when it has none). */
export function treeNodeHeadAt(type: DocumentType, id: number, register: boolean, created: number | null, status: number): string {
  const json = JSON.stringify({ id, type, name: documentName(type, register), created: created === null ? null : formatMoscow(created), status });
  return json.slice(0, -1);
}

export function treeNodeJson(head: string, isThis: boolean, childes: string[]): string {
  return `${head},"isThis":${isThis ? 1 : 0},"childes":[${childes.join(',')}]}`;
}

/** The contractor's fields a document shows besides its id, in the spec's order: an edit of any renders its documents again. */
export const SHOWN_CONTRACTOR_FIELDS = ['type', 'name', 'contactPerson', 'inn', 'kpp'] as const;

export type ShownContractor = Pick<ContractorRecord, 'id' | (typeof SHOWN_CONTRACTOR_FIELDS)[number]>;

export function shownContractor(c: ShownContractor): ShownContractor {
  return { id: c.id, type: c.type, name: c.name, contactPerson: c.contactPerson, inn: c.inn, kpp: c.kpp };
}

function contractorOf(c: ShownContractor | undefined, id: number) {
  return c ? shownContractor(c) : { id, type: null, name: null, contactPerson: null, inn: null, kpp: null };
}

/** Nested objects are rebuilt key by key: stored records have sorted keys, the API shows the spec's order. */
function userOf(u: DocumentFields['user']) {
  return u && { id: u.id, type: u.type, name: u.name };
}

function companyOf(c: NonNullable<DocumentFields['company']>) {
  return { id: c.id, name: c.name, inn: c.inn, kpp: c.kpp };
}

function bankAccountOf(a: NonNullable<DocumentFields['company']>['bankAccount']) {
  return a && { id: a.id, name: a.name, bic: a.bic, correspondent_account: a.correspondent_account, current_account: a.current_account };
}

function lineOf(l: DocumentFields['products'][number]) {
  return {
    pr_id: l.pr_id,
    pr_name: l.pr_name,
    pr_sku: l.pr_sku,
    pr_count: l.pr_count,
    pr_unit: l.pr_unit && { name: l.pr_unit.name, code: l.pr_unit.code },
    pr_price: fromKopecks(l.pr_price),
    pr_vat: l.pr_vat,
    pr_discount: l.pr_discount,
  };
}

function commonView(id: number, type: DocumentType, status: number, f: DocumentFields, contractor: ShownContractor | undefined) {
  return {
    id,
    type,
    status,
    number: f.number,
    date: f.date,
    contractor: contractorOf(contractor, f.contractorId),
    comment: f.comment,
    user: userOf(f.user),
    created: moscow(f.created),
    edited: moscow(f.edited),
    sum: fromKopecks(f.sum),
  };
}

/** A customer order, invoice, shipment (or any document of product lines), keys in the spec's order. */
export function lineDocumentView(id: number, type: DocumentType, status: number, f: DocumentFields, contractor: ShownContractor | undefined, paid: number, tree: unknown) {
  return {
    ...commonView(id, type, status, f, contractor),
    company: f.company && companyOf(f.company),
    stock: f.stock && { id: f.stock.id, name: f.stock.name },
    vat: f.vatIncluded,
    paid: fromKopecks(paid),
    ...(type === 'sale' && { fiscal: f.fiscal }),
    products: f.products.map(lineOf),
    tree,
  };
}

/** A money document; payments carry `company.bankAccount` (null when unknown), cash documents have no such key. */
export function moneyDocumentView(id: number, type: DocumentType, status: number, f: DocumentFields, contractor: ShownContractor | undefined, tree: unknown) {
  const company = f.company && (PAYMENT_TYPES.includes(type) ? { ...companyOf(f.company), bankAccount: bankAccountOf(f.company.bankAccount) } : companyOf(f.company));
  const { id: _id, ...common } = commonView(id, type, status, f, contractor);
  return {
    id,
    name: documentName(type, f.register),
    ...common,
    company,
    purpose: f.purpose,
    vat: fromKopecks(f.vatSum),
    tree,
  };
}
