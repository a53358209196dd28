import type { ColumnType, ReadModelDialect } from '../dialect.ts';

const TYPES: Record<ColumnType, string> = { integer: 'bigint', real: 'double precision', text: 'text COLLATE "C"' };

/**
 * PostgreSQL's spelling of the read-model SQL: `bigint` (integer is 32-bit), text in byte order as SQLite
 * compares it, JSON as text (jsonb would reorder keys). Index hints do not exist: the planner chooses.
 */
export const postgresDialect: ReadModelDialect = {
  types: TYPES,
  clusteredTableSuffix: '',
  ownTable: (name) => `"${name}"`,
  indexHint: (table) => table,
  // A parameter in a VALUES list is text unless told: joined to a bigint column it would not compare.
  typedRows: (rows, types) => Array(rows).fill(`(${types.map((type) => (type === 'text' ? '?' : `?::${TYPES[type]}`)).join(', ')})`).join(', '),
  // The page's rows read under a constant bound first, so the one plan kept for every limit is the right one.
  limitedPage: (select, most) => `SELECT json FROM (${select} LIMIT ${most}) AS bounded ORDER BY id LIMIT CAST(? AS BIGINT)`,
};

/**
 * `text` with its `?` placeholders numbered as PostgreSQL writes them (`$1`, `$2`, …); a `?` inside quotes, or
 * of a `?|` or `?&` operator, stays as it is (the read models use neither).
 */
export function numberedPlaceholders(text: string): string {
  let n = 0;
  let out = '';
  let quote: string | undefined;
  for (const c of text) {
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      out += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      out += c;
    } else out += c === '?' ? `$${++n}` : c;
  }
  return out;
}
