/** Every function of `T`, answering with a promise of what it returned. */
export type AsyncReads<T> = { [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never };
