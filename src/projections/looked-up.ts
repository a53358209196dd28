import { type SqlSession, byCount, inChunks, valueList } from '../storage/sql.ts';
import type { TableNames } from './projector.ts';
import type { Lookup, RowValue } from './read-model.ts';

/**
 * The values of a read model's `lookups` its renders read, each read once and kept until `forget` (the end of a
 * flush), at most its `limit` at a time: kept ones are dropped all at once when more would not fit. Those a batch
 * of records looks up (`Lookup.of`) can be read together before it is rendered (`readAhead`), a statement a
 * hundred, not one a record.
 */
export class LookedUp<R> {
  private readonly values = new Map<string, Map<number, unknown>>();
  private readonly one: Record<string, string>;
  private readonly many: Record<string, (count: number) => string>;
  /** The lookups a record names (`Lookup.of`), read ahead of a batch's render. */
  private readonly ahead: [string, Lookup<R>][];

  constructor(
    private readonly lookups: Readonly<Record<string, Lookup<R>>>,
    private readonly session: SqlSession,
    n: TableNames,
  ) {
    const entries = Object.entries(lookups);
    this.one = Object.fromEntries(entries.map(([name, lookup]) => [name, rowValueSql(lookup, n)]));
    this.many = Object.fromEntries(
      entries.map(([name, { table, column }]) => [name, byCount((count) => `SELECT id, ${column} FROM ${n(table)} WHERE id IN (${valueList(count)})`)]),
    );
    this.ahead = entries.filter(([, lookup]) => lookup.of !== undefined);
  }

  /** The value `name` of the row `id`: kept, or read (a promise then). */
  get(name: string, id: number): unknown {
    const values = this.kept(name);
    if (values.has(id)) return values.get(id);
    return this.session.value(this.one[name], [id]).then((stored) => {
      this.room(name, values, 1);
      values.set(id, this.made(name, stored));
      return values.get(id);
    });
  }

  /** Whether a lookup names the ids a record looks up (`Lookup.of`): only then is there anything to read ahead. */
  get readsAhead(): boolean {
    return this.ahead.length > 0;
  }

  /** Reads the values these records look up (`Lookup.of`) and are not kept yet. */
  async readAhead(records: readonly R[]): Promise<void> {
    for (const [name, { of }] of this.ahead) {
      const values = this.kept(name);
      const missing = [...new Set(records.map(of!))].filter((id): id is number => id !== undefined && !values.has(id));
      this.room(name, values, missing.length);
      await inChunks(missing, async (chunk) => {
        const found = new Map(await this.session.rows<[number, unknown]>(this.many[name](chunk.length), chunk));
        for (const id of chunk) values.set(id, this.made(name, found.get(id)));
      });
    }
  }

  /** The value `name` of the row `id` read anew when next asked for (the row changed). */
  forget(name: string, id: number): void {
    this.values.get(name)?.delete(id);
  }

  forgetAll(): void {
    this.values.clear();
  }

  private kept(name: string): Map<number, unknown> {
    let values = this.values.get(name);
    if (values === undefined) this.values.set(name, (values = new Map()));
    return values;
  }

  private made(name: string, stored: unknown): unknown {
    const { value } = this.lookups[name];
    return value === undefined ? stored : value(stored);
  }

  /** Room for `count` more values of one lookup: the kept ones dropped when they would not fit. */
  private room(name: string, values: Map<number, unknown>, count: number): void {
    const { limit } = this.lookups[name];
    if (limit !== undefined && values.size + count > limit) values.clear();
  }
}

/** The statement reading a `RowValue` of one id. */
export const rowValueSql = ({ table, column }: RowValue, n: TableNames) => `SELECT ${column} FROM ${n(table)} WHERE id = ?`;
