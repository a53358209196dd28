import { html } from 'hono/html';
import type { Company } from '../../company.ts';
import { DOCUMENT_TYPES, type DocumentType } from '../../records/document/events.ts';
import { ownPageHref } from './links.ts';
import { day, leafName, storedText, typeName } from './show.ts';
import type { Texts } from './texts.ts';

/**
 * Records named for people beside their keys (`ООО «Магистраль-4» (contractor-4)`): the names of a page's records
 * are read together, one statement a kind of record, never one a line.
 */

/** A record's key (its stream) as its kind and id: `sale-24` → sale, 24; a contractor status's key is its name. */
export function streamParts(stream: string): { kind: string; id: number } | undefined {
  const [, kind, id] = /^([a-z]+)-(\d+)$/.exec(stream) ?? [];
  return kind === undefined ? undefined : { kind, id: Number(id) };
}

/** The kind of record a key names: `sale-24` → sale, `contractor-status-VIP` → contractor-status. */
export const kindOf = (stream: string) => stream.slice(0, stream.lastIndexOf('-'));

const isDocumentType = (kind: string): kind is DocumentType => DOCUMENT_TYPES.includes(kind as DocumentType);

/** Fields that name another record by its id, and that record's kind. */
const REFERENCES: Record<string, string> = { categoryId: 'category', brandId: 'brand', contractorId: 'contractor', pr_id: 'product' };

/** The key of the record a field (by its path) of a record of `kind` names, if it names one: a `parent` is one of the record's own kind. */
export function referencedStream(kind: string, path: string, value: unknown): string | undefined {
  if (typeof value !== 'number' || value < 1) return undefined;
  const leaf = leafName(path);
  const named = leaf === 'parent' ? (kind === 'category' || kind === 'product' ? kind : undefined) : REFERENCES[leaf];
  return named === undefined ? undefined : `${named}-${value}`;
}

/** The names of the records these keys name, by key; a record that has no name or is not there is left out. */
export async function recordNames(tb: Company, t: Texts, streams: Iterable<string>): Promise<Map<string, string>> {
  const ids = new Map<string, Set<number>>();
  for (const stream of streams) {
    const parts = streamParts(stream);
    if (parts !== undefined) ids.set(parts.kind, (ids.get(parts.kind) ?? new Set()).add(parts.id));
  }
  const of = (kind: string) => [...(ids.get(kind) ?? [])];
  const documents = [...ids].filter(([kind]) => isDocumentType(kind)).flatMap(([type, set]) => [...set].map((id) => ({ type: type as DocumentType, id })));
  // Independent reads, sent together: on a database server they travel at once.
  const [contractors, products, categories, brands, numbers] = await Promise.all([
    of('contractor').length === 0 ? new Map<number, string | null>() : tb.contractors.namesByIds(of('contractor')),
    of('product').length === 0 ? new Map<number, string>() : tb.products.namesByIds(of('product')),
    of('category').length === 0 ? new Map<number, string>() : tb.categories.namesByIds(of('category')),
    of('brand').length === 0 ? new Map<number, string>() : tb.brands.namesByIds(of('brand')),
    documents.length === 0 ? new Map<string, { number: string | null; date: string }>() : tb.documents.numbersOf(documents),
  ]);
  const names = new Map<string, string>();
  for (const [kind, found] of [['contractor', contractors], ['product', products], ['category', categories], ['brand', brands]] as const)
    for (const [id, name] of found) if (name) names.set(`${kind}-${id}`, name);
  for (const [stream, { number, date }] of numbers) names.set(stream, t.record.documentNamed(typeName(t, kindOf(stream)), number, day(date)));
  return names;
}

/** A record named beside its key: `ООО «Магистраль-4» (contractor-4)`; its key alone when it has no name. */
export const namedRecord = (names: Map<string, string>, stream: string) => (names.has(stream) ? `${names.get(stream)} (${stream})` : stream);

/** A field's value as a page shows it: one naming another record is that record's name, linked to its page, beside the id. */
export function shownValue(t: Texts, kind: string, path: string, value: unknown, names: Map<string, string>) {
  const stream = referencedStream(kind, path, value);
  if (stream === undefined || !names.has(stream)) return storedText(t, path, value);
  return html`<a href="${ownPageHref(stream)}">${names.get(stream)}</a> (${String(value)})`;
}
