import type { ReadModelDialect } from '../storage/dialect.ts';
import type { Sqlite } from '../storage/sqlite/open.ts';

/** A page of records whose JSON a read table keeps ready: the whole list's size, the page's, and their JSON joined by commas as UTF-8. */
export interface JoinedPage {
  allCount: number;
  count: number;
  json: Buffer;
}

/**
 * Prepares a page query whose rows the database joins into one UTF-8 buffer (the dialect's `joinedJson`). `select`
 * yields the column `json` (the record's ready JSON) in page order; `allCount` is a query of the whole list's size.
 * Both take the caller's named parameters and run in one read transaction, so the count and the page come from one
 * snapshot (a commit by another process between two statements outside a transaction would show a count of another
 * moment). Handing each of 100 rows to JavaScript as a string (decoded from UTF-8, to be encoded again for the
 * socket) cost more than the rest of the request; one blob crosses over with neither.
 */
export function joinedPageQuery(db: Sqlite, dialect: ReadModelDialect, select: string, allCount: string): (params: Record<string, unknown>) => JoinedPage {
  // Two statements: the count as a scalar subquery of the page's measured ~5 µs dearer (its blob result is copied once more).
  const page = db.prepare(dialect.joinedJson(select)).raw();
  const count = db.prepare(allCount).pluck();
  return db.transaction((params: Record<string, unknown>): JoinedPage => {
    const total = count.get(params) as number;
    const [rows, json] = page.get(params) as [number, Buffer | null];
    return { allCount: total, count: rows, json: json ?? Buffer.alloc(0) };
  });
}
