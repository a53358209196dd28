import { DOCUMENT_TYPES, type DocumentType } from '../../records/document/events.ts';

/**
 * Links built from stored values (stream names, document types, ids, form values): every path segment and
 * query value is URL-encoded here, so a record whose name holds `&`, `#`, `+`, `/` or a space links to itself.
 */

/** A workbench path with its query, each value encoded. */
export function href(path: string, query: Record<string, string | number> = {}): string {
  const search = new URLSearchParams(Object.entries(query).map(([name, value]) => [name, String(value)])).toString();
  return search === '' ? path : `${path}?${search}`;
}

/** A record as of a moment (its stream's name). */
export const recordHref = (stream: string) => href('/audit/record', { stream });

/** A document's page. */
export const documentHref = (type: string, id: number) => `/audit/document/${encodeURIComponent(type)}/${encodeURIComponent(id)}`;

/** A contractor's page. */
export const contractorHref = (id: number) => `/audit/contractor/${encodeURIComponent(id)}`;

/** The page of a record named by its stream: a document's or a contractor's own page, else the record as of now. */
export function ownPageHref(stream: string): string {
  const [, kind, id] = /^([a-z]+)-(\d+)$/.exec(stream) ?? [];
  if (kind === 'contractor') return contractorHref(Number(id));
  if (DOCUMENT_TYPES.includes(kind as DocumentType)) return documentHref(kind, Number(id));
  return recordHref(stream);
}

/** A contractor's акт сверки for a period (`path`: the page, or its CSV or XLSX file); a year's when `to` is left out. */
export const statementHref = (contractor: number, from: string, to?: string, path = '/audit/statement') =>
  href(path, to === undefined ? { contractor, dateFrom: `${from}-01-01`, dateTo: `${from}-12-31` } : { contractor, dateFrom: from, dateTo: to });
