import type { ReadModelDialect } from '../dialect.ts';
import { placeholders } from '../sql.ts';

/** SQLite's spelling of the read-model SQL. */
export const sqliteDialect: ReadModelDialect = {
  // `INTEGER PRIMARY KEY` is the row id itself; SQLite's integers are 64-bit and its text compares bytes.
  types: { integer: 'INTEGER', real: 'REAL', text: 'TEXT' },
  clusteredTableSuffix: ' WITHOUT ROWID',
  ownTable: (name) => `main."${name}"`,
  indexHint: (table, index) => `${table} INDEXED BY ${index}`,
  typedRows: (rows, types) => placeholders(rows, types.length),
  // A bare `LIMIT ?` after a recursive WITH ran some 70 µs slower than this one.
  limitedPage: (select) => `${select} LIMIT CAST(? AS BIGINT)`,
};
