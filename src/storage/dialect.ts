/**
 * The read-model SQL that engines spell differently. Projectors and read queries write portable SQL and ask an
 * engine's dialect for the rest; each engine implements this once (`sqlite/dialect.ts`).
 */
export interface ReadModelDialect {
  /**
   * Ends the `CREATE TABLE` of a table whose rows are only its primary key: stored in the key's order, without a
   * separate row id (empty where the engine has no such choice).
   */
  readonly clusteredTableSuffix: string;
  /** `table` as a `FROM` clause names it, read through `index` where the engine lets a query pin one. */
  indexHint(table: string, index: string): string;
  /**
   * A statement of one row: how many rows `select` yields, and their `json` column (each a record's JSON text)
   * joined by commas in the order `select` gives them, as one UTF-8 buffer (null when there are none).
   */
  joinedJson(select: string): string;
}
