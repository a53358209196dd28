/** Every function of `T`, answering with a promise of what it returned. */
export type AsyncReads<T> = { [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never };

/**
 * The read queries as the storage seam offers them, answering with promises: an engine that reads over a
 * network (PostgreSQL) answers later; SQLite answers at once, each promise already settled.
 */
export function asyncReads<T extends Record<string, (...args: never[]) => unknown>>(queries: T): AsyncReads<T> {
  return Object.fromEntries(Object.entries(queries).map(([name, query]) => [name, async (...args: never[]) => query(...args)])) as AsyncReads<T>;
}
