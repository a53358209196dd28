import type { Context } from 'hono';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { Company } from '../../company.ts';
import type { DocumentType } from '../../records/document/events.ts';
import { PAGE_HEADERS, type View, sendPage } from './layout.ts';
import { href } from './links.ts';
import { day, typeName } from './show.ts';
import type { Texts } from './texts.ts';

/**
 * Records found by what a person types (a name, an INN, a phone, a document's number, a product's SKU) instead of
 * an id: one found goes straight on, several are a list of links to pick from (no script needed), none is said.
 * Every read is an index seek or a search cut off at a page of candidates.
 */

/** How many candidates a list to pick from shows. */
const PICKS = 20;

/** The form field a contractor is named in, as typed. */
export const CONTRACTOR_TEXT = 'contractorText';

/** A record found, as a list to pick from shows it. */
export interface Found {
  stream: string;
  id: number;
  label: string;
}

interface ContractorJson {
  id: number;
  name: string | null;
  inn: string | null;
  phone1: string | null;
}

/**
 * The contractors (their JSON as the API shows it) a person means by what they typed: a whole INN (10 or 12
 * digits) by its index, a phone (7 or more digits among other characters) by its digits' index, and anything
 * else by part of the name.
 */
export async function findContractors(tb: Company, q: string, limit: number): Promise<string[]> {
  const text = q.trim();
  const digits = text.replace(/\D/g, '');
  if (/^\d{10}(\d{2})?$/.test(text)) {
    const ids = await tb.contractors.idsByInn(text, limit);
    if (ids.length > 0) return tb.contractors.jsonByIds(ids);
  }
  if (digits.length >= 7 && /^[\d\s()+\-.]+$/.test(text)) {
    const ids = await tb.contractors.idsByPhone(text, limit);
    if (ids.length > 0) return tb.contractors.jsonByIds(ids);
  }
  return tb.contractors.byNamePart(text, limit);
}

/**
 * The contractors a person means, to pick one: those named exactly so (whatever the case), even when other names
 * hold the text too (`ООО Ромашка` beside `ООО Ромашка плюс`); else those `findContractors` finds.
 */
async function contractorsMeant(tb: Company, t: Texts, text: string): Promise<Found[]> {
  const exact = await tb.contractors.idsByName(text, PICKS + 1);
  const found = exact.length > 0 ? await tb.contractors.jsonByIds(exact) : await findContractors(tb, text, PICKS + 1);
  return found.map((json) => {
    const k = JSON.parse(json) as ContractorJson;
    const details = [k.inn && `${t.contractors.columns.inn} ${k.inn}`, k.phone1].filter(Boolean).join(', ');
    return { stream: `contractor-${k.id}`, id: k.id, label: `${k.name ?? `#${k.id}`} (contractor-${k.id})${details === '' ? '' : `, ${details}`}` };
  });
}

/** The products a person means: the one with the SKU typed, then those named so (`byName`), each once. */
async function productsMeant(tb: Company, t: Texts, text: string): Promise<Found[]> {
  const [bySku, byName] = await Promise.all([tb.products.idBySku(text.trim()), tb.products.byName(text, PICKS + 1)]);
  const skuFound = bySku === undefined || byName.some((p) => p.id === bySku) ? [] : [{ id: bySku, name: (await tb.products.namesByIds([bySku])).get(bySku)!, sku: text.trim() }];
  return [...skuFound, ...byName].map((p) => ({ stream: `product-${p.id}`, id: p.id, label: `${p.name} (product-${p.id}), ${t.recordFields.sku.toLowerCase()} ${p.sku}` }));
}

/** The records a person means for a record's page: contractors, documents by their number, products by SKU or name. */
async function recordsMeant(tb: Company, t: Texts, text: string): Promise<Found[]> {
  const [contractors, documents, products] = await Promise.all([
    contractorsMeant(tb, t, text),
    tb.documents.search({ number: text }, PICKS + 1),
    productsMeant(tb, t, text),
  ]);
  const listed = documents.map((json) => JSON.parse(json) as { type: DocumentType; id: number; number: string | null; date: string; contractor: { name: string | null } });
  return [
    ...contractors,
    ...listed.map((d) => ({
      stream: `${d.type}-${d.id}`,
      id: d.id,
      label: `${t.record.documentNamed(typeName(t, d.type), d.number, day(d.date))} (${d.type}-${d.id})${d.contractor.name ? `, ${d.contractor.name}` : ''}`,
    })),
    ...products,
  ];
}

/** What a person's text came to: the one record meant, several to pick from (`more` when there are more than shown), or none. */
export type Pick = { found: 'one'; record: Found } | { found: 'several'; records: Found[]; more: boolean } | { found: 'none' };

const pickOf = (found: Found[]): Pick =>
  found.length === 0 ? { found: 'none' } : found.length === 1 ? { found: 'one', record: found[0] } : { found: 'several', records: found.slice(0, PICKS), more: found.length > PICKS };

export const pickContractor = async (tb: Company, t: Texts, text: string) => pickOf(await contractorsMeant(tb, t, text));
export const pickRecord = async (tb: Company, t: Texts, text: string) => pickOf(await recordsMeant(tb, t, text));

/** A list to pick from, or that nothing was found: each record a link (`hrefOf`) to the page it was asked for. */
export function pickList({ t }: View, text: string, pick: Exclude<Pick, { found: 'one' }>, hrefOf: (record: Found) => string) {
  if (pick.found === 'none') return html`<p class="empty" data-picks="0">${t.pick.none(text)}</p>`;
  return html`<div class="picks" data-picks="${pick.records.length}"><p>${t.pick.several(text)}</p>
<ul>${pick.records.map((record) => html`<li data-stream="${record.stream}"><a href="${hrefOf(record)}">${record.label}</a></li>`)}</ul>
${pick.more ? html`<p class="note">${t.pick.more(PICKS)}</p>` : ''}</div>`;
}

/** A page's address with the contractor picked (`contractor=<id>`) in place of the text it was found by. */
export function withContractor(path: string, values: Record<string, string>, id: number): string {
  const { [CONTRACTOR_TEXT]: _, contractor: __, ...rest } = values;
  return href(path, { ...rest, contractor: id });
}

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/**
 * A form (at `path`) whose contractor was typed: the one found is chosen (the same address with its id, redirected
 * to), several are a list to pick from on the form's page (`pageWith`), none is said there. Undefined when no
 * contractor was typed: the page goes on with the contractor its address names, if any.
 */
export async function answerTypedContractor(c: Context, tb: Company, view: View, path: string, values: Record<string, string>, pageWith: (list: Html) => Html): Promise<Response | undefined> {
  const text = values[CONTRACTOR_TEXT];
  if (text === undefined) return undefined;
  return answerPick(c, view, text, await pickContractor(tb, view.t, text), (record) => withContractor(path, values, record.id), pageWith);
}

/** The answer to what a person typed: the one record found at its address (`hrefOf`, redirected to), else the page (`pageWith`) with a list to pick from or saying none was found. */
export function answerPick(c: Context, view: View, text: string, pick: Pick, hrefOf: (record: Found) => string, pageWith: (list: Html) => Html): Response | Promise<Response> {
  if (pick.found === 'one') {
    // Sent like the workbench's pages: not cached, and under their policy.
    for (const name of ['Cache-Control', 'Content-Security-Policy'] as const) c.header(name, PAGE_HEADERS[name]);
    return c.redirect(hrefOf(pick.record), 303);
  }
  return sendPage(c, pageWith(pickList(view, text, pick, hrefOf)), pick.found === 'none' ? 404 : 200);
}

/** The name of the contractor a page was given by id, to show in its form; undefined when there is none. */
export async function chosenContractor(tb: Company, values: Record<string, string>): Promise<string | undefined> {
  const id = Number(values.contractor);
  if (!Number.isSafeInteger(id) || id < 1) return undefined;
  return (await tb.contractors.namesByIds([id])).get(id) ?? undefined;
}

/** The field a contractor is named in: its name as typed, or the name of the one chosen. */
export const contractorInput = ({ t }: View, values: Record<string, string>, chosen: string | undefined, required = false) =>
  html`<label>${t.pick.contractor} <input name="${CONTRACTOR_TEXT}" size="28" placeholder="${t.pick.contractorPlaceholder}" value="${values[CONTRACTOR_TEXT] ?? chosen ?? ''}"${required ? html` required` : ''}></label>`;
