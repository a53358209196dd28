import type { ReadModelDialect } from './dialect.ts';

/**
 * A connection as the read models use it, on either engine: statements in SQL both engines accept (the rest
 * asked of `dialect`), `?` for each parameter in order. The promises of an embedded engine (SQLite) settle at
 * once, within the caller's turn; a network engine's (PostgreSQL) later. Statements are prepared once a
 * connection, by their text: build a text once and keep it (`byCount` for texts that grow with their rows).
 */
export interface SqlSession {
  readonly dialect: ReadModelDialect;
  /** The rows as arrays of their columns' values. */
  rows<Row extends unknown[] = unknown[]>(text: string, params?: readonly unknown[]): Promise<Row[]>;
  /** The rows as objects, keyed by their columns' names. */
  objects<Row extends object>(text: string, params?: readonly unknown[]): Promise<Row[]>;
  /** The first row's first column (undefined when there is no row). */
  value<T>(text: string, params?: readonly unknown[]): Promise<T | undefined>;
  run(text: string, params?: readonly unknown[]): Promise<void>;
  /** A page of ready JSON and the whole list's size, from one snapshot (see `JoinedPageQuery`). */
  joinedPage(query: JoinedPageQuery, params: JoinedPageParams): Promise<JoinedPage>;
}

/**
 * A page of records whose JSON a read table keeps ready: `select` yields the column `json` in page order,
 * `allCount` the whole list's size (one value). The database joins the page's JSON with commas into one text:
 * handing each of a hundred rows to JavaScript as a string cost more than the rest of the request.
 */
export interface JoinedPageQuery {
  select: string;
  allCount: string;
}

export interface JoinedPageParams {
  select: readonly unknown[];
  allCount: readonly unknown[];
}

/** The whole list's size, the page's, and the page's JSON joined by commas, as UTF-8. */
export interface JoinedPage {
  allCount: number;
  count: number;
  json: Buffer;
}

/** Rows or keys a multi-row statement carries: far below either engine's limit of bound parameters, few texts to prepare. */
export const ROWS_PER_STATEMENT = 100;

/** `?, ?, ?` for `count` values (an `IN` list). */
export function valueList(count: number): string {
  return Array(count).fill('?').join(', ');
}

/**
 * `(?, ?), (?, ?)` for `rows` rows of `columns` values; `($1, $2), ($3, $4)` when `numbered`, for a statement
 * handed to PostgreSQL's driver as it is.
 */
export function placeholders(rows: number, columns: number, numbered = false): string {
  if (!numbered) return Array(rows).fill(`(${valueList(columns)})`).join(', ');
  return Array.from({ length: rows }, (_, row) => `(${Array.from({ length: columns }, (_, column) => `$${row * columns + column + 1}`).join(', ')})`).join(', ');
}

/** A statement text that depends on how many rows or values it carries, built once for each count. */
export function byCount(text: (count: number) => string): (count: number) => string {
  const built = new Map<number, string>();
  return (count) => {
    let found = built.get(count);
    if (found === undefined) built.set(count, (found = text(count)));
    return found;
  };
}

/** `items` cut into lists of at most `size`, in order. */
export function chunks<T>(items: readonly T[], size = ROWS_PER_STATEMENT): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
}

/** Hands `rows` to `write` a statement's worth at a time, one after another. */
export async function inChunks<T>(rows: T[], write: (chunk: T[]) => Promise<void>): Promise<void> {
  for (const chunk of chunks(rows)) await write(chunk);
}

/** `SELECT key, value … WHERE key IN (…)` over any number of keys, a statement per hundred keys: a map of what was found. */
export function keyedRead<K, V>(sql: (list: string) => string, decode: (value: unknown) => V): (session: SqlSession, keys: K[]) => Promise<Map<K, V>> {
  const text = byCount((count) => sql(valueList(count)));
  return async (session, keys) => {
    const found = new Map<K, V>();
    await inChunks(keys, async (chunk) => {
      for (const [key, value] of await session.rows<[K, unknown]>(text(chunk.length), chunk)) found.set(key, decode(value));
    });
    return found;
  };
}
