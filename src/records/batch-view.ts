/**
 * What a batch's deciders read, as each kind's state (`RecordKind.state`) answers from it: the answers its
 * lookups read in bulk, and the records its own earlier events made, laid over them.
 */
export interface BatchView {
  readonly answers: Answers;
  readonly overlay: Overlay;
  /** The next id of a table: after the highest read and the highest the batch took. */
  nextId(table: string): number;
}

/** A batch's answers, by table and key; asking a key no lookup of the batch named is a bug in a decider's `lookups`. */
export class Answers {
  private readonly tables = new Map<string, Map<unknown, unknown>>();

  table<K, V>(name: string): Map<K, V> {
    let table = this.tables.get(name);
    if (table === undefined) this.tables.set(name, (table = new Map()));
    return table as Map<K, V>;
  }

  set(name: string, key: unknown, value: unknown): void {
    this.table(name).set(key, value);
  }

  /** Sets the answer unless one is known (a record found by another kind of lookup than the one that missed it). */
  setAbsent(name: string, key: unknown, absent: unknown): void {
    const table = this.table(name);
    if (!table.has(key)) table.set(key, absent);
  }

  get<V>(name: string, key: unknown): V {
    const table = this.tables.get(name);
    if (table === undefined || !table.has(key)) throw new Error(`a decider read ${name} ${JSON.stringify(key)}, which no lookup of its batch named`);
    return table.get(key) as V;
  }
}

/** What the batch's own events made of its records: by stream, with the unique keys and highest ids they moved. */
export class Overlay {
  private readonly records = new Map<string, object>();
  /** Unique keys the batch moved: to the id now holding them, or to none (undefined) once left. */
  private readonly owners = new Map<string, number | undefined>();
  private readonly highest = new Map<string, number>();

  /** A record as an event of the batch left it, its old unique key freed and its new one taken. */
  lay(stream: string, before: object | undefined, after: object, idTable: string | undefined, uniqueKey: ((record: never) => string) | undefined): void {
    this.records.set(stream, after);
    const id = (after as { id?: number }).id;
    if (id === undefined) return;
    if (uniqueKey !== undefined) {
      if (before !== undefined) this.owners.set(uniqueKey(before as never), undefined);
      this.owners.set(uniqueKey(after as never), id);
    }
    if (idTable !== undefined) this.highest.set(idTable, Math.max(this.highest.get(idTable) ?? 0, id));
  }

  has(stream: string): boolean {
    return this.records.has(stream);
  }

  /** The record of the stream when the batch changed it (a record is never undefined here). */
  record<T>(stream: string): T | undefined {
    return this.records.get(stream) as T | undefined;
  }

  /** The owner of a unique key the batch moved (`{ id: undefined }`: the key was left), or undefined when it moved none. */
  owner(key: string): { id: number | undefined } | undefined {
    return this.owners.has(key) ? { id: this.owners.get(key) } : undefined;
  }

  highestId(table: string): number {
    return this.highest.get(table) ?? 0;
  }
}
