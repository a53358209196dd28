import { ROWS_PER_STATEMENT, type SqlSession, byCount, inChunks, placeholders, valueList } from '../storage/sql.ts';
import { type FlushBudget, type TableNames, drainInChunks } from './projector.ts';
import type { Partition } from './id-counts.ts';
import type { KeptFigures, RecordReadModel, RenderContext, ServedRows } from './read-model.ts';
import type { LookedUp } from './looked-up.ts';
import type { WriteStrategy } from './write-strategies.ts';

/**
 * Writes a read model's served rows (`RecordReadModel.served`): told of each record an event adds or changes, it
 * renders their rows at the flush, within its budget, and keeps them back by key, written a hundred a statement
 * (each inserted or replacing the row with its key) at the end of each flush step. Which rows a flush renders is
 * the strategy's (`WriteStrategy.renders`): live, the groups whose figures moved and the other records touched;
 * in a build, every record once, at its end, its figures from what was kept of every record.
 */
export interface ServedRowsWriter<R> {
  added(record: R): void;
  changed(record: R, before: R): Promise<void> | void;
  /** The records whose stored `column` holds `value` are rendered again (what they show of another row changed). */
  touchWhere(column: string, value: number): Promise<void> | void;
  /** Renders what is pending, within the budget: true when nothing is left. */
  flush(budget: FlushBudget): Promise<boolean>;
  discard(): void;
}

/** What the served rows' writer asks of the writer of the records: their rows written, and a record as it is now. */
export interface WrittenRecords<R> {
  writeKept(): Promise<void>;
  record(id: number, partition: Partition): Promise<R | undefined>;
}

export function servedRowsWriter<R extends { id: number }>(
  model: RecordReadModel<R>,
  session: SqlSession,
  n: TableNames,
  strategy: WriteStrategy,
  records: WrittenRecords<R>,
  looked: LookedUp<R>,
  context: RenderContext,
): ServedRowsWriter<R> {
  const table = new ServedTable(model, session, n, looked, context);
  return strategy.renders === 'every-record-at-the-end' ? new EveryRowAtTheEnd(table, model.served!.figures.kept()) : new RowsTouched(table, records);
}

/** The statements of a model's served rows and the records they are rendered from, every table named through `n`. */
function statements<R extends { id: number }>(model: RecordReadModel<R>, n: TableNames) {
  const served = model.served!;
  const { table, read, numbered } = model.records;
  if (numbered === undefined) throw new Error(`${model.name}: served rows are keyed by the records' number`);
  const t = n(served.table);
  const records = `${read.columns.join(', ')} FROM ${n(table)}`;
  const [key, ...rest] = Object.keys(served.columns);
  // The record's partition and id follow from its number as the key does: a row replaced keeps them.
  const recordKey = [...(model.records.partition?.columns ?? []), 'id'];
  const replaced = rest.filter((c) => !recordKey.includes(c));
  return {
    numbered,
    save: byCount(
      (rows) =>
        `INSERT INTO ${t} (${[key, ...rest].join(', ')}) VALUES ${placeholders(rows, rest.length + 1)}
         ON CONFLICT (${key}) DO UPDATE SET ${replaced.map((c) => `${c} = excluded.${c}`).join(', ')}`,
    ),
    recordsAfter: `SELECT ${records} WHERE ${numbered} > ? ORDER BY ${numbered} LIMIT ?`,
    recordsNumbered: byCount((count) => `SELECT ${records} WHERE ${numbered} IN (${valueList(count)})`),
    figures: byCount((count) => `SELECT ${key}, ${served.figures.served.columns.join(', ')} FROM ${t} WHERE ${key} IN (${valueList(count)})`),
    numbersWhere: (column: string) => `SELECT ${numbered} FROM ${n(table)} WHERE ${column} = ?`,
  };
}

/** The served rows rendered and kept back by key until a statement's worth is or the flush step ends (`write`). */
class ServedTable<R extends { id: number }> {
  readonly sql: ReturnType<typeof statements<R>>;
  readonly served: ServedRows<R>;
  private readonly unwritten = new Map<unknown, unknown[]>();

  constructor(
    readonly model: RecordReadModel<R>,
    readonly session: SqlSession,
    readonly names: TableNames,
    readonly looked: LookedUp<R>,
    private readonly context: RenderContext,
  ) {
    this.served = model.served!;
    this.sql = statements(model, names);
  }

  /** A record's number, its served row's key. */
  numberOf(record: R): number {
    return record[this.sql.numbered] as number;
  }

  /** Renders each record's row with its figures, one at a time (a group's figures together grow with the square of its size). */
  async render(rendered: Iterable<readonly [R, unknown]>): Promise<void> {
    for (const [record, figures] of rendered) {
      const row = await this.served.render(record, figures, this.context);
      this.unwritten.set(row[0], row);
      if (this.unwritten.size >= ROWS_PER_STATEMENT) await this.write();
    }
  }

  /** Saves the rows rendered and not written yet. */
  async write(): Promise<void> {
    const rows = [...this.unwritten.values()];
    this.unwritten.clear();
    await inChunks(rows, (chunk) => this.session.run(this.sql.save(chunk.length), chunk.flat()));
  }

  discard(): void {
    this.unwritten.clear();
  }
}

/**
 * Live: the groups of the records whose figures an event moved, read through the tables, and the other records
 * touched, each rendered once a flush however many events touched it (with the figures its row holds). Pending
 * work is held by number.
 */
class RowsTouched<R extends { id: number }> implements ServedRowsWriter<R> {
  private readonly groups = new Set<number>();
  private readonly touched = new Set<number>();
  /** Records rendered by this flush (kept across its steps). */
  private readonly rendered = new Set<number>();
  private readonly groupsOf: (numbers: number[]) => Promise<Iterable<readonly [R, unknown]>>;

  constructor(
    private readonly table: ServedTable<R>,
    private readonly records: WrittenRecords<R>,
  ) {
    this.groupsOf = table.served.figures.read(table.session, table.names);
  }

  added(record: R): void {
    this.groups.add(this.table.numberOf(record));
  }

  async changed(record: R, before: R): Promise<void> {
    const { figures } = this.table.served;
    if (!figures.moves(record, before)) {
      this.touched.add(this.table.numberOf(record));
      return;
    }
    this.groups.add(this.table.numberOf(record));
    for (const [partition, id] of figures.left(record, before)) {
      const left = await this.records.record(id, partition);
      if (left !== undefined) this.groups.add(this.table.numberOf(left));
    }
  }

  async touchWhere(column: string, value: number): Promise<void> {
    await this.records.writeKept();
    for (const [number] of await this.table.session.rows<[number]>(this.table.sql.numbersWhere(column), [value])) this.touched.add(number);
  }

  async flush(budget: FlushBudget): Promise<boolean> {
    const done =
      (await drainInChunks(this.groups, budget, (numbers) => this.renderGroups(numbers))) &&
      (await drainInChunks(this.touched, budget, (numbers) => this.renderTouched(numbers)));
    await this.table.write();
    return done;
  }

  /** Renders every record of the groups of these, with their figures anew. */
  private async renderGroups(numbers: number[]): Promise<void> {
    // Groups are disjoint: one of a record not rendered yet holds none that was.
    const fresh = numbers.filter((number) => !this.rendered.has(number));
    if (fresh.length === 0) return;
    await this.table.render(this.marked(await this.groupsOf(fresh)));
  }

  /** The records as they are rendered, each noted as rendered by this flush. */
  private *marked(rendered: Iterable<readonly [R, unknown]>): Generator<readonly [R, unknown]> {
    for (const each of rendered) {
      this.rendered.add(this.table.numberOf(each[0]));
      yield each;
    }
  }

  /** Renders these records again with the figures their rows hold (a change that moved none). */
  private async renderTouched(numbers: number[]): Promise<void> {
    const fresh = numbers.filter((number) => !this.rendered.has(number));
    if (fresh.length === 0) return;
    const { session, sql, model, served } = this.table;
    await this.table.write();
    const held = new Map((await session.rows<unknown[]>(sql.figures(fresh.length), fresh)).map(([key, ...values]) => [key, values]));
    const found = (await session.rows<unknown[]>(sql.recordsNumbered(fresh.length), fresh)).map(model.records.read.record);
    await this.table.render(found.map((record) => [record, served.figures.served.figures(held.get(this.table.numberOf(record))!)] as const));
  }

  discard(): void {
    for (const pending of [this.groups, this.touched, this.rendered]) pending.clear();
    this.table.discard();
  }
}

/**
 * A build: every record rendered once at its end, in number order, its figures from what was kept of every record
 * (`LinkedFigures.kept`), not from reading the rows written. Each shows the rows it looks up as they are then.
 */
class EveryRowAtTheEnd<R extends { id: number }> implements ServedRowsWriter<R> {
  /** The number rendered up to, and the read of the rows after it, asked for ahead. */
  private renderedUpTo = 0;
  private nextRows: Promise<unknown[][]> | undefined;

  constructor(
    private readonly table: ServedTable<R>,
    private readonly kept: KeptFigures<R, unknown>,
  ) {}

  added(record: R): void {
    this.kept.set(record);
  }

  changed(record: R): void {
    this.kept.set(record);
  }

  touchWhere(): void {}

  async flush(budget: FlushBudget): Promise<boolean> {
    const done = await this.render(budget);
    await this.table.write();
    return done;
  }

  /** A statement's worth of rows read at a time, each read asked for before the rows before it are rendered (a network engine answers it meanwhile). */
  private async render(budget: FlushBudget): Promise<boolean> {
    const { session, sql, model, looked } = this.table;
    const after = (number: number) => session.rows<unknown[]>(sql.recordsAfter, [number, ROWS_PER_STATEMENT]);
    while (budget.left > 0) {
      const found = await (this.nextRows ?? after(this.renderedUpTo));
      this.nextRows = undefined;
      if (found.length === 0) return true;
      // Made into records only here: records made by a read ahead outlived the young generation.
      const records = found.map(model.records.read.record);
      this.renderedUpTo = this.table.numberOf(records[records.length - 1]);
      this.nextRows = after(this.renderedUpTo);
      // Awaited by the next step; a build that fails first must not leave it rejected unhandled.
      this.nextRows.catch(() => {});
      await looked.readAhead(records);
      await this.table.render(this.withFigures(records));
      budget.left -= records.length;
    }
    return false;
  }

  /** The records with their figures, each found as it is rendered. */
  private *withFigures(records: R[]): Generator<readonly [R, unknown]> {
    for (const record of records) yield [record, this.kept.figures(record)];
  }

  discard(): void {
    this.kept.forget();
    this.renderedUpTo = 0;
    this.nextRows = undefined;
    this.table.discard();
  }
}
