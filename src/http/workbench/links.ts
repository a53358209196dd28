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
