import type { Context } from 'hono';
import type { JoinedPage } from '../storage/sql.ts';
import type { AppEnv } from './env.ts';
import { type ValidQuery, pagingQuery, validQuery } from './query.ts';
import { sendPage } from './respond.ts';

/** A read model paged by its dense `position`: the count and any page are O(log n). */
export interface PositionPaged {
  page(offset: number, limit: number): Promise<JoinedPage>;
}

/** The query of the catalogue and contractor lists: `limit` 1..100 (default 100), `offset` from 0. */
export const listQuery = pagingQuery(100);

/** The handlers of a paged list: `limit`/`offset` validated (ERROR_LIMIT / ERROR_OFFSET), then the page envelope. */
export function pagedList(source: PositionPaged) {
  return [
    validQuery(listQuery),
    async (c: Context<AppEnv, string, ValidQuery<typeof listQuery>>) => {
      const { limit, offset } = c.req.valid('query');
      return sendPage(c, limit, offset, await source.page(offset, limit));
    },
  ] as const;
}
