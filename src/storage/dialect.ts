/** A column's type as read models name it; each engine spells it (`ReadModelDialect.types`). */
export type ColumnType = 'integer' | 'real' | 'text';

/**
 * The read-model SQL that engines spell differently. Projectors and read queries write portable SQL and ask an
 * engine's dialect for the rest; each engine implements this once (`sqlite/dialect.ts`, `postgres/dialect.ts`).
 */
export interface ReadModelDialect {
  /** Column types: `integer` 64-bit (ids, money, positions), `real` a double, `text` compared byte by byte. */
  readonly types: Readonly<Record<ColumnType, string>>;
  /**
   * Ends the `CREATE TABLE` of a table whose rows are only its primary key: stored in the key's order, without a
   * separate row id (empty where the engine has no such choice).
   */
  readonly clusteredTableSuffix: string;
  /** A table of the connection's own database, never one of the same name in a database attached to it. */
  ownTable(name: string): string;
  /** `table` as a `FROM` clause names it, read through `index` where the engine lets a query pin one. */
  indexHint(table: string, index: string): string;
  /**
   * `(?, ?), (?, ?)` for `rows` rows whose columns have `types`, for a VALUES list whose columns no table names
   * (`WITH v (…) AS (VALUES …)`): an engine that types parameters from their context is told.
   */
  typedRows(rows: number, types: readonly ColumnType[]): string;
  /**
   * `select` (rows with an `id` and a `json` column, `ORDER BY id`) cut to a page's limit, its last parameter, which
   * is at most `most`. PostgreSQL keeps one plan of a prepared statement for all values only while it costs no more
   * than a plan for the values given, and under a limit that is only a parameter it assumes a tenth of the table:
   * it is told the most a page reads.
   */
  limitedPage(select: string, most: number): string;
}
