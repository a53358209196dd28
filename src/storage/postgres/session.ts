import type { SqlSession } from '../sql.ts';
import type { Sql } from './connection.ts';
import { numberedPlaceholders, postgresDialect } from './dialect.ts';

/**
 * PostgreSQL as an `SqlSession`, on the connection `on()` names when a statement is sent (the writer's session
 * inside a unit of work, the pool otherwise). Texts are numbered once and prepared once a connection.
 */
/**
 * Whether a parameter is text holding U+0000, which PostgreSQL refuses in text: no stored text holds it (writes
 * refuse it at validation), so a read keyed by one finds nothing, as on SQLite.
 */
export const holdsNul = (params: readonly unknown[]) => params.some((param) => typeof param === 'string' && param.includes('\u0000'));

export function postgresSession(on: () => Sql): SqlSession {
  const numbered = new Map<string, string>();
  const text = (sql: string) => {
    let found = numbered.get(sql);
    if (found === undefined) numbered.set(sql, (found = numberedPlaceholders(sql)));
    return found;
  };
  const rows = async <Row extends unknown[]>(sql: string, params: readonly unknown[] = []) => (holdsNul(params) ? [] : on().values<Row>(text(sql), params));
  return {
    dialect: postgresDialect,
    rows,
    objects: async <Row extends object>(sql: string, params: readonly unknown[] = []) => (holdsNul(params) ? [] : on().sql<Row>(text(sql), params)),
    value: async <T>(sql: string, params: readonly unknown[] = []) => (await rows(sql, params))[0]?.[0] as T | undefined,
    run: (sql, params = []) => on().run(text(sql), params),
    // One statement is one snapshot: the count comes with the page. The page's JSON crosses as the bytes received,
    // never decoded into a string to be encoded again for the socket.
    joinedPage: async (query, params) => {
      const all = [...params.allCount, ...params.select];
      if (holdsNul(all)) return { allCount: 0, count: 0, json: Buffer.alloc(0) };
      const [[allCount, count, json]] = await on().buffers(
        text(`SELECT (${query.allCount}), count(*), string_agg(json, ',') FROM (${query.select}) AS page`),
        all,
      );
      return { allCount: Number(String(allCount)), count: Number(String(count)), json: json ?? Buffer.alloc(0) };
    },
  };
}
