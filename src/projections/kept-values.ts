/**
 * Values a read model takes from other read models' records (a contractor's bonus percent, for a sale), kept by id
 * as the events that set them are applied (`set`), so that most reads of them read nothing. Live (`keptOrRead`),
 * one not kept is read and kept, at most `limit` at a time; in a build (`keptFromEvents`), every event before has
 * been applied, so one not kept is `none` and nothing is read, and only values other than `none` are kept.
 * `forget` drops them all (at the end of a flush).
 */
export interface KeptValues<V> {
  get(id: number): V | Promise<V>;
  set(id: number, value: V): void;
  forget(): void;
}

export function keptOrRead<V>(read: (id: number) => Promise<V>, limit: number): KeptValues<V> {
  const kept = new Map<number, V>();
  const set = (id: number, value: V) => {
    if (kept.size >= limit) kept.clear();
    kept.set(id, value);
  };
  return {
    get: (id) =>
      kept.has(id)
        ? kept.get(id)!
        : read(id).then((value) => {
            set(id, value);
            return value;
          }),
    set,
    forget: () => kept.clear(),
  };
}

export function keptFromEvents<V>(none: V): KeptValues<V> {
  const kept = new Map<number, V>();
  return {
    get: (id) => (kept.has(id) ? kept.get(id)! : none),
    set: (id, value) => void (value === none ? kept.delete(id) : kept.set(id, value)),
    forget: () => kept.clear(),
  };
}
