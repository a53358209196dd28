import type { Context } from 'hono';
import type { JoinedPage } from '../storage/sql.ts';
import { pagingQuery, parseQuery } from './query.ts';
import { sendErrors, sendPage } from './respond.ts';
import { requestQuery } from './node-request.ts';

/** A read model paged in id order: the count and any page cost the same at any offset (`projections/id-counts.ts`). */
export interface PositionPaged {
  page(offset: number, limit: number): Promise<JoinedPage>;
}

/** The query of the catalogue and contractor lists: `limit` 1..100 (default 100), `offset` from 0. */
export const listQuery = pagingQuery(100);

/** The handler of a paged list: parse `limit`/`offset` (ERROR_LIMIT / ERROR_OFFSET), answer the page envelope. */
export function pagedList(source: PositionPaged) {
  return async (c: Context) => {
    const query = parseQuery(listQuery, requestQuery(c));
    if (!query.ok) return sendErrors(c, 400, query.errors);
    const { limit, offset } = query.value;
    return sendPage(c, limit, offset, await source.page(offset, limit));
  };
}
