import type { ReadModelDialect } from '../dialect.ts';

/** SQLite's spelling of the read-model SQL. */
export const sqliteDialect: ReadModelDialect = {
  clusteredTableSuffix: ' WITHOUT ROWID',
  indexHint: (table, index) => `${table} INDEXED BY ${index}`,
  // SQLite runs the ordered subquery as a co-routine whose rows the aggregate takes in order; an ORDER BY inside
  // group_concat would sort the page a second time and doubled the query's cost. The page tests pin the order.
  // The blob crosses into JavaScript as one buffer, never decoded into a string.
  joinedJson: (select) => `SELECT count(*), CAST(group_concat(json, ',') AS BLOB) FROM (${select})`,
};
