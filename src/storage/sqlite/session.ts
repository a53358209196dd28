import type { JoinedPage, JoinedPageParams, JoinedPageQuery, SqlSession } from '../sql.ts';
import { sqliteDialect } from './dialect.ts';
import type { Sqlite, Statement } from './open.ts';

/**
 * A SQLite connection as an `SqlSession`: each text prepared once, on first use. The statements run
 * synchronously, so every promise is settled before the caller's turn ends and no other code uses the connection
 * in between (the writer's units rely on it).
 */
export function sqliteSession(db: Sqlite): SqlSession {
  const arrays = new Map<string, Statement>();
  const objects = new Map<string, Statement>();
  const prepared = (cache: Map<string, Statement>, text: string, raw: boolean) => {
    let statement = cache.get(text);
    if (statement === undefined) {
      statement = db.prepare(text);
      if (raw && statement.reader) statement.raw();
      cache.set(text, statement);
    }
    return statement;
  };
  const pages = new Map<JoinedPageQuery, (params: JoinedPageParams) => JoinedPage>();
  return {
    dialect: sqliteDialect,
    rows: async <Row extends unknown[]>(text: string, params: readonly unknown[] = []) => prepared(arrays, text, true).all(params) as Row[],
    objects: async <Row extends object>(text: string, params: readonly unknown[] = []) => prepared(objects, text, false).all(params) as Row[],
    value: async <T>(text: string, params: readonly unknown[] = []) => (prepared(arrays, text, true).get(params) as unknown[] | undefined)?.[0] as T | undefined,
    run: async (text, params = []) => void prepared(objects, text, false).run(params),
    joinedPage: async (query, params) => {
      let page = pages.get(query);
      if (page === undefined) pages.set(query, (page = joinedPageOn(db, query)));
      return page(params);
    },
  };
}

/**
 * The page and the count in one read transaction, so both come from one snapshot (a commit by another process
 * between two statements outside a transaction would show a count of another moment). Two statements: the count
 * as a scalar subquery of the page copies its blob result once more (docs/performance.md).
 */
function joinedPageOn(db: Sqlite, query: JoinedPageQuery): (params: JoinedPageParams) => JoinedPage {
  // SQLite runs the ordered subquery as a co-routine whose rows the aggregate takes in order; an ORDER BY inside
  // group_concat would sort the page a second time and doubled the query's cost. The page tests pin the order.
  // The blob crosses into JavaScript as one buffer, never decoded into a string.
  const page = db.prepare(`SELECT count(*), CAST(group_concat(json, ',') AS BLOB) FROM (${query.select})`).raw();
  const count = db.prepare(query.allCount).pluck();
  return db.transaction((params: JoinedPageParams): JoinedPage => {
    const total = count.get(params.allCount) as number;
    const [rows, json] = page.get(params.select) as [number, Buffer | null];
    return { allCount: total, count: rows, json: json ?? Buffer.alloc(0) };
  });
}
