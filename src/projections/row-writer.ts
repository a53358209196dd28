import { ROWS_PER_STATEMENT, type SqlSession, byCount, inChunks, placeholders, valueList } from '../storage/sql.ts';
import type { StoredEvent } from '../events/rows.ts';
import { type EventHandler, type FlushBudget, type Projector, type TableNames, drainInChunks, drainReadingAhead, inIdOrder } from './projector.ts';
import type { Partition } from './id-counts.ts';
import type { Columns, RecordChanges, RecordReadModel, RenderContext } from './read-model.ts';
import { type ChildRowsWriter, childRowsWriter } from './child-rows.ts';
import { NO_COUNTS, type IdCounts, type NewIds, type Numbers, type WriteStrategy } from './write-strategies.ts';
import type { KeptValues } from './kept-values.ts';
import { LookedUp, rowValueSql } from './looked-up.ts';
import { type ServedRowsWriter, servedRowsWriter } from './served-rows.ts';

/** The projector of a declared read model: its rows written by a `RowWriter`, in the strategy it is bound with. */
export function recordProjector<R extends { id: number }>(model: RecordReadModel<R>): Projector {
  const { table, pagedBy, pagedWithin } = model.records;
  return {
    name: model.name,
    version: model.version,
    after: model.after,
    tables: model.tables,
    schema: model.schema,
    readIndexes: model.readIndexes,
    ...(pagedBy === undefined ? {} : { countedIds: [{ rows: table, counts: pagedBy, partition: pagedWithin?.columns }] }),
    bind: (session, names, strategy) => new RowWriter(model, session, names, strategy).handler(),
  };
}

/** The partition of a table that has none. */
const NO_PARTITION: Partition = [];

/** A record's identity in the writer's maps: its id, or in a partitioned table its partition's values and id as text. */
type Key = number | string;

/** A narrow row's value for a rendered column of each type, until the flush renders it. */
const UNRENDERED = { integer: 0, real: 0, text: '' } as const;

/**
 * Writes a read model's records, whatever the model: new rows kept back and inserted a statement's worth at a time
 * in id order (before any event the model does not read, so later read models find them), their id counts kept,
 * changed records kept back too and written whole, rendered, with them (one version of the row), patches and
 * re-renders deferred to the flush (write-behind: a record rendered once however many events touched it), the flush reading a statement's worth of rows ahead and rewriting them in id order within the
 * budget it is given. Nothing outlives a flush, and `discard` forgets everything when a transaction is rolled back.
 * A partitioned table's records are known by their partition and id; a record edited into another partition of
 * its counts (`pagedWithin`) is counted there. Values of other read models an add takes (`kept`) are kept as the
 * strategy keeps them until the flush ends. The flush renders the model's served rows of the records an event
 * added or changed (`served`, `served-rows.ts`) and the records of the read model it `refreshes` they name.
 */
export class RowWriter<R extends { id: number }> implements RecordChanges<R> {
  private readonly sql: ReturnType<typeof statements<R>>;
  private readonly known: NewIds;
  private readonly counts: IdCounts;
  private readonly numbers: Numbers | undefined;
  private readonly adds: ReadonlySet<string>;
  /** New records not written yet, by key. */
  private adding = new Map<Key, R>();
  /** Records changed and not written yet, by key: written whole, rendered, with the records kept back. */
  private readonly changed = new Map<Key, R>();
  /** Of the records changed, those an edit gave other values of the table's unique columns (`RecordTable.unique`). */
  private readonly moving = new Set<Key>();
  /** Of the new ones, those written narrow, rendered at the flush (`WriteStrategy.rendersAtAdd`). */
  private readonly narrow = new Set<Key>();
  /** Rows whose rendered columns are written at the flush, each with the changes merged into it since (`patch`). */
  private readonly pending = new Map<number, Partial<R>>();
  /** Rows noted in the model's `sets` and not written yet, by set, each by its values as JSON. */
  private readonly noted = new Map<string, Map<string, unknown[]>>();
  /** Values the renders looked up since the last flush. */
  private readonly looked: LookedUp<R>;
  /** A build's sums of every record, read once at its flush, by name. */
  private readonly summed = new Map<string, Map<number, number[]>>();
  private flushing = false;
  /**
   * Whether anything was kept, read ahead, numbered or noted since the last `discard`: a transaction that touched
   * none of the model's records (most touch one or two read models) costs its persist, flush and discard nothing.
   */
  private touched = false;
  /** The writers of the model's `children`. */
  private readonly children: ChildRowsWriter<R>[];
  private readonly context: RenderContext = { lookup: (name, id) => this.looked.get(name, id), sums: (name, ids) => this.sums(name, ids) };
  /** The model's `kept` values, by name. */
  private readonly keptValues: Map<string, KeptValues<unknown>>;
  private readonly served: ServedRowsWriter<R> | undefined;
  /** The writer of the records the model `refreshes`, and the ids of those to refresh at the flush. */
  private readonly refreshing: RowWriter<{ id: number }> | undefined;
  private readonly toRefresh = new Set<number>();

  constructor(
    private readonly model: RecordReadModel<R>,
    private readonly session: SqlSession,
    private readonly names: TableNames,
    private readonly strategy: WriteStrategy,
  ) {
    const { table, partition, numbered, numberedAs, pagedBy, pagedWithin, rendered, patch } = model.records;
    if (partition !== undefined && (Object.keys(rendered).length > 0 || patch !== undefined || model.records.unique !== undefined)) {
      throw new Error(`${model.name}: a partitioned table's rows are written whole, without rendered columns, patches or unique columns`);
    }
    this.sql = statements(model, names, session);
    this.known = strategy.ids(session, names(table), partition?.columns);
    this.counts = pagedBy === undefined ? NO_COUNTS : strategy.counts(session, names(pagedBy), pagedWithin?.columns);
    this.numbers = numbered === undefined ? undefined : strategy.numbers(session, names(numberedAs ?? table), numbered);
    this.adds = new Set(model.adds);
    this.children = (model.children ?? []).map((child) => childRowsWriter(session, names, child, strategy));
    this.keptValues = new Map(
      Object.entries(model.kept ?? {}).map(([name, { value, none, limit }]) => [
        name,
        strategy.kept(async (id) => value(await session.value(this.sql.kept[name], [id])), none, limit),
      ]),
    );
    this.looked = new LookedUp(model.lookups ?? {}, session, names);
    this.served = model.served && servedRowsWriter(model, session, names, strategy, this, this.looked, this.context);
    this.refreshing = model.refreshes && new RowWriter(model.refreshes.model, session, names, strategy);
  }

  handler(): EventHandler {
    if (this.sql.copy !== undefined && this.strategy.derivedRows === 'copied-at-the-end') return this.copier(this.sql.copy);
    // Not async: most of a long log is events no read model does I/O for.
    const on = this.model.on as Readonly<Record<string, ((event: StoredEvent, changes: RecordChanges<R>) => Promise<void> | void) | undefined>>;
    const handle = (event: StoredEvent) => {
      const apply = on[event.type];
      if (apply !== undefined) return apply(event, this);
      if (this.adding.size > 0 || this.changed.size > 0 || this.noted.size > 0) return this.writeKept();
    };
    return Object.assign(handle, {
      // A batch's new ids looked up at once: ids in any order cost a statement a hundred, not a seek each.
      prepare: (events: readonly StoredEvent[]) => {
        const added = events.flatMap((e) => (this.adds.has(e.type) ? [this.model.addedKey?.(e) ?? ([NO_PARTITION, (e.data as { id: number }).id] as const)] : []));
        if (added.length === 0) return;
        this.touched = true;
        return this.known.lookUp(added);
      },
      persist: () => (this.touched ? this.persist() : undefined),
      flush: (budget: FlushBudget) => this.flush(budget),
      discard: () => this.discard(),
    });
  }

  /** Copies the rows at the first flush (after the read models they are copied from), and does nothing per event. */
  private copier(copy: string): EventHandler {
    let copied = false;
    const flush = async () => {
      if (!copied) await this.session.run(copy);
      copied = true;
      return true;
    };
    return Object.assign(() => {}, { flush });
  }

  add(record: R): Promise<void> | void {
    this.touched = true;
    const partition = this.partitionOf(record);
    const isNew = this.known.isNew(partition, record.id);
    return typeof isNew === 'boolean' ? this.place(record, partition, isNew) : isNew.then((answer) => this.place(record, partition, answer));
  }

  async edit(id: number, change: (current: R | undefined) => R | undefined, partition = NO_PARTITION): Promise<void> {
    this.touched = true;
    const key = this.keyOf(partition, id);
    const kept = this.adding.get(key);
    const current = await this.record(id, partition);
    const next = change(current);
    if (next === undefined) return;
    // The changes patched in are written with it.
    this.pending.delete(id);
    if (current !== undefined) this.recount(current, next);
    // A record kept back goes in with its children as it is then; one written has its children replaced when they differ.
    if (kept === undefined && current !== undefined) for (const children of this.children) children.change(current, next);
    if (kept === undefined && current !== undefined && this.movesUnique(current, next)) this.moving.add(key);
    (kept !== undefined ? this.adding : this.changed).set(key, next);
    if (current === undefined) this.added(next);
    else await this.changedFrom(next, current);
  }

  /** A record added: its served row rendered at the flush, and what it refreshes. */
  private added(record: R): void {
    this.served?.added(record);
    this.refresh(record);
  }

  /** A record changed from `before`: its served row rendered at the flush, and what either refreshes. */
  private changedFrom(record: R, before: R): Promise<void> | void {
    this.refresh(record);
    this.refresh(before);
    return this.served?.changed(record, before);
  }

  /** The records of the other read model this one names refreshed at the flush (`RecordReadModel.refreshes`). */
  private refresh(record: R): void {
    if (this.model.refreshes !== undefined) for (const id of this.model.refreshes.ids(record)) this.toRefresh.add(id);
  }

  /** The record as it is now (`undefined` when there is none): kept back, or read. */
  async record(id: number, partition = NO_PARTITION): Promise<R | undefined> {
    const key = this.keyOf(partition, id);
    return this.patched(id, this.adding.get(key) ?? this.changed.get(key) ?? (await this.readOne(partition, id)));
  }

  keep(name: string, id: number, value: unknown): void {
    this.touched = true;
    this.keptValues.get(name)!.set(id, value);
  }

  kept(name: string, id: number): unknown {
    this.touched = true;
    return this.keptValues.get(name)!.get(id);
  }

  patch(id: number, changes: Partial<R>): void {
    // Merged in place: they live until the flush, and a fresh object per event would pile up as old-generation
    // garbage over a long rebuild.
    this.touched = true;
    const merged = this.pending.get(id);
    if (merged === undefined) this.pending.set(id, { ...changes });
    else Object.assign(merged, changes);
  }

  async rerenderWhere(column: string, value: number, lookup?: string): Promise<void> {
    this.touched = true;
    if (this.sql.flushed.length > 0) {
      await this.writeKept();
      for (const [id] of await this.session.rows<[number]>(this.sql.idsWhere(column), [value])) this.toRender(id);
    }
    // Once the records kept back are rendered: read before, the value could be the other read model's as it was,
    // its edit still kept back there.
    if (lookup !== undefined) this.looked.forget(lookup, value);
    await this.served?.touchWhere(column, value);
  }

  note(set: string, row: unknown[]): void {
    this.touched = true;
    let rows = this.noted.get(set);
    if (rows === undefined) this.noted.set(set, (rows = new Map()));
    rows.set(JSON.stringify(row), row);
  }

  /** Renders these records again now, as a flush would: rows of other read models they show changed. */
  async rerender(ids: number[]): Promise<void> {
    this.touched = true;
    this.flushing = true;
    await inChunks(ids, async (chunk) => this.rewrite(await this.session.rows<unknown[]>(this.sql.readMany(chunk.length), chunk)));
  }

  /** A new record kept back, or (an add applied again) the one there replaced. */
  private place(record: R, partition: Partition, isNew: boolean): Promise<void> | void {
    if (!isNew) return this.replace(record, partition);
    const renders = this.strategy.rendersAtAdd(this.known, partition, record.id);
    return typeof renders === 'boolean' ? this.number(record, partition, renders) : renders.then((answer) => this.number(record, partition, answer));
  }

  /** A new record given the next number (`RecordTable.numbered`), when its table numbers them. */
  private number(record: R, partition: Partition, renders: boolean): Promise<void> | void {
    const { numbered } = this.model.records;
    if (numbered === undefined) return this.keepBack(record, partition, renders);
    const next = this.numbers!.next();
    const numberIt = (n: number) => {
      (record as Record<string, unknown>)[numbered] = n;
      return this.keepBack(record, partition, renders);
    };
    return typeof next === 'number' ? numberIt(next) : next.then(numberIt);
  }

  private keepBack(record: R, partition: Partition, renders: boolean): Promise<void> | void {
    const key = this.keyOf(partition, record.id);
    this.known.add(partition, record.id);
    this.counts.add(this.countedIn(record), record.id);
    this.adding.set(key, record);
    if (!renders) this.narrow.add(key);
    this.added(record);
    // Written a statement's worth at a time: records kept back for a whole transaction outlived the young generation.
    if (this.adding.size >= ROWS_PER_STATEMENT) return this.writeKept();
  }

  /** An add applied again: the record there replaced, keeping its number and what else it was given once, and counted where it is now. */
  private replace(record: R, partition: Partition): Promise<void> {
    const { numbered, givenOnce = [] } = this.model.records;
    const once = numbered === undefined ? givenOnce : [numbered, ...givenOnce];
    const keeping = (current: R) => Object.fromEntries(once.map((field) => [field, current[field]]));
    return this.edit(record.id, (current) => (once.length === 0 || current === undefined ? record : { ...record, ...keeping(current) }), partition);
  }

  private partitionOf(record: R): Partition {
    return this.model.records.partition?.of(record) ?? NO_PARTITION;
  }

  private keyOf(partition: Partition, id: number): Key {
    return partition.length === 0 ? id : `${partition.join('\u0000')}\u0000${id}`;
  }

  /** The partition of its counts a record's id is counted in. */
  private countedIn(record: R): Partition {
    return this.model.records.pagedWithin?.of(record) ?? NO_PARTITION;
  }

  /** A record edited into another partition of its counts moves there. */
  private recount(current: R, next: R): void {
    const [from, to] = [this.countedIn(current), this.countedIn(next)];
    if (from.every((value, i) => value === to[i])) return;
    this.counts.remove(from, current.id);
    this.counts.add(to, next.id);
  }

  private movesUnique(current: R, next: R): boolean {
    const { unique } = this.model.records;
    if (unique === undefined) return false;
    const after = unique(next);
    return unique(current).some((value, i) => value !== after[i]);
  }

  /** `record` with the changes patched into it since the last flush. */
  private patched(id: number, record: R | undefined): R | undefined {
    const changes = this.pending.get(id);
    return record === undefined || changes === undefined || this.model.records.patch === undefined ? record : this.model.records.patch(record, changes);
  }

  private toRender(id: number): void {
    if (this.sql.flushed.length > 0 && !this.pending.has(id)) this.pending.set(id, {});
  }

  private async readOne(partition: Partition, id: number): Promise<R | undefined> {
    const [found] = await this.session.rows<unknown[]>(this.sql.readOne, [...partition, id]);
    return found === undefined ? undefined : this.model.records.read.record(found);
  }

  /**
   * The records changed, rendered a batch at a time, each written whole (one version of its row), a statement's
   * worth of rows at a time. Both engines check a unique column row by row within a statement, so a record taking a
   * value another of them leaves could meet it still there: the rows of records whose unique values moved are
   * deleted first and inserted anew.
   */
  private async writeChanged(): Promise<void> {
    if (this.changed.size === 0) return;
    const changed = [...this.changed];
    this.changed.clear();
    const rendered = await this.render(changed.map(([, record]) => record));
    const rows = changed.map(([key, record], i) => ({ id: record.id, moved: this.moving.has(key), stored: this.model.records.row(record), rendered: rendered[i] }));
    this.moving.clear();
    const moved = rows.filter((r) => r.moved);
    await inChunks(moved, (chunk) => this.session.run(this.sql.deleteMany(chunk.length), chunk.map((r) => r.id)));
    await this.updateRows(this.sql.update, rows.filter((r) => !r.moved));
    await inChunks(moved, (chunk) => this.session.run(this.sql.insert(chunk.length), chunk.flatMap((r) => [...r.stored, ...r.rendered])));
  }

  /** Rows found by their key updated a statement's worth at a time: `update`'s stored columns, then the rendered ones. */
  private async updateRows(update: Update, rows: { stored: unknown[]; rendered: unknown[] }[]): Promise<void> {
    const { keyAt } = this.sql;
    await inChunks(rows, (chunk) =>
      this.session.run(
        update.text(chunk.length),
        chunk.flatMap(({ stored, rendered }) => [...keyAt.map((at) => stored[at]), ...update.storedAt.map((at) => stored[at]), ...rendered]),
      ),
    );
  }

  /** The rows noted, the records changed, the records kept back and their children: before anything reads the tables. */
  async writeKept(): Promise<void> {
    await this.writeNoted();
    await this.writeChanged();
    await this.writeNew();
    for (const children of this.children) await children.write();
  }

  /** The records kept back, in id order, rendered now or (narrow) at the flush, their children kept back. */
  private async writeNew(): Promise<void> {
    if (this.adding.size === 0) return;
    const records = [...this.adding.values()].sort(this.sql.order);
    // A new map, not the one cleared: a long-lived map cleared kept the records it held alive into the old
    // generation (a build's documents promoted ~2 KB each, `--trace-gc-nvp`).
    this.adding = new Map();
    // Most records are wide: their keys are made only when some are not.
    const narrow = records.map((r) => this.narrow.size > 0 && this.narrow.delete(this.keyOf(this.partitionOf(r), r.id)));
    const rendered = await this.render(records.filter((_, i) => !narrow[i]));
    let next = 0;
    const rows = records.map((r, i) => {
      if (!narrow[i]) return this.wideRow(r, rendered[next++]);
      this.toRender(r.id);
      return this.wideRow(r, this.sql.unrendered);
    });
    await inChunks(rows, (chunk) => this.session.run(this.sql.insert(chunk.length), chunk.flat()));
    for (const children of this.children) for (const r of records) children.add(r);
  }

  /** The rendered columns' values of these records (none when the table has none), the values they look up read first, together. */
  private render(records: R[]): Promise<unknown[][]> | unknown[][] {
    const { render } = this.model;
    if (render === undefined) return records.map(() => NO_VALUES);
    return this.looked.readsAhead ? this.looked.readAhead(records).then(() => render(records, this.context)) : render(records, this.context);
  }

  /** A record's stored values followed by these of its rendered columns. */
  private wideRow(record: R, rendered: unknown[]): unknown[] {
    const row = this.model.records.row(record);
    if (rendered.length > 0) row.push(...rendered);
    return row;
  }

  private async writeNoted(): Promise<void> {
    for (const [set, rows] of this.noted) {
      this.noted.delete(set);
      await inChunks([...rows.values()], (chunk) => this.session.run(this.sql.sets[set](chunk.length), chunk.flat()));
    }
  }

  /** The end of an apply or a replayed chunk: nothing kept back outlives its transaction. */
  private async persist(): Promise<void> {
    await this.writeKept();
    await this.counts.persist();
    this.known.forget();
    this.numbers?.forget();
  }

  /** The deferred renders, in id order, a statement's worth of rows read ahead of the one rewritten. */
  private async flush(budget: FlushBudget): Promise<boolean> {
    if (!this.touched) return true;
    await this.writeKept();
    for (const children of this.children) await children.moveStaged();
    inIdOrder(this.pending);
    const read = (ids: number[]) => this.session.rows<unknown[]>(this.sql.readMany(ids.length), ids);
    this.flushing = true;
    const done =
      (await drainReadingAhead(this.pending, budget, read, (_, found) => this.rewrite(found))) &&
      (this.served === undefined || (await this.served.flush(budget))) &&
      (await drainInChunks(this.toRefresh, budget, (ids) => this.refreshing!.rerender(ids)));
    if (done) this.discard();
    return done;
  }

  private async rewrite(found: unknown[][]): Promise<void> {
    if (found.length === 0) return;
    const { read, row } = this.model.records;
    const records = found.map(([id, ...values]) => this.patched(id as number, read.record(values))!);
    const rendered = await this.render(records);
    await this.updateRows(this.sql.rewrite, records.map((r, i) => ({ stored: row(r), rendered: rendered[i] })));
  }

  private async sums(name: string, ids: number[]): Promise<Map<number, number[]>> {
    const read = this.sql.sums[name];
    if (this.strategy.sums === 'of-the-records') return keyed(await readChunks(ids, (chunk) => this.session.rows<number[]>(read.of(chunk.length), chunk)));
    if (!this.flushing) return NOTHING_SUMMED;
    let all = this.summed.get(name);
    if (all === undefined) this.summed.set(name, (all = keyed(await this.session.rows<number[]>(read.all))));
    return all;
  }

  private discard(): void {
    if (!this.touched) return;
    this.touched = false;
    this.flushing = false;
    for (const children of this.children) children.discard();
    this.summed.clear();
    this.noted.clear();
    this.adding.clear();
    this.changed.clear();
    this.moving.clear();
    this.narrow.clear();
    this.pending.clear();
    this.looked.forgetAll();
    this.served?.discard();
    this.toRefresh.clear();
    this.refreshing?.discard();
    this.counts.discard();
    this.known.forget();
    this.numbers?.forget();
    for (const values of this.keptValues.values()) values.forget();
  }
}

const NOTHING_SUMMED = new Map<number, number[]>();

/** The rendered values of a record of a table without rendered columns. */
const NO_VALUES: unknown[] = [];

/** Rows read a statement's worth of keys at a time. */
async function readChunks<T>(keys: number[], read: (chunk: number[]) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  await inChunks(keys, async (chunk) => void rows.push(...(await read(chunk))));
  return rows;
}

/** Two keys' order: by their first values that differ. */
function compareKeys(a: Partition, b: Partition): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return (a[i] as number | string) < (b[i] as number | string) ? -1 : 1;
  return 0;
}

/** Rows whose first value is a key, by key, each with the values after it. */
const keyed = (rows: number[][]) => new Map(rows.map(([key, ...values]) => [Number(key), values.map(Number)]));

/** A multi-row update of a table's rows found by their key: its text for a count of rows, and the stored columns it writes before the rendered ones (their places in a stored row). */
interface Update {
  text(rows: number): string;
  storedAt: number[];
}

/** The statements a model's declaration makes, every table named through `n`. */
function statements<R extends { id: number }>(model: RecordReadModel<R>, n: TableNames, { dialect }: SqlSession) {
  const { table, stored, read, rendered, patch, partition, numbered } = model.records;
  const t = n(table);
  const storedColumns = Object.keys(stored);
  const keyColumns = [...(partition?.columns ?? []), 'id'];
  const byKey = keyColumns.map((c) => `${c} = ?`).join(' AND ');
  // A number is given once; the key stays.
  const updated = storedColumns.filter((c) => !keyColumns.includes(c) && c !== numbered);
  const renderedColumns = Object.keys(rendered);
  const all = [...storedColumns, ...renderedColumns];
  const flushed = patch === undefined ? renderedColumns : [...read.columns, ...renderedColumns];
  const types: Columns = { ...stored, ...rendered };
  /** Stored columns (by name) and then the rendered ones, of up to a statement's worth of rows, each row's key first. */
  const updateOf = (storedNames: readonly string[]): Update => {
    const columns = [...storedNames, ...renderedColumns];
    const given = [...keyColumns, ...columns];
    return {
      text: byCount(
        (rows) =>
          `WITH v (${given.join(', ')}) AS (VALUES ${dialect.typedRows(rows, given.map((c) => types[c]))})
           UPDATE ${t} SET ${columns.map((c) => `${c} = v.${c}`).join(', ')} FROM v WHERE ${keyColumns.map((c) => `${t}.${c} = v.${c}`).join(' AND ')}`,
      ),
      storedAt: storedNames.map((c) => storedColumns.indexOf(c)),
    };
  };
  return {
    insert: byCount((rows) => `INSERT INTO ${t} (${all.join(', ')}) VALUES ${placeholders(rows, all.length)}`),
    copy: model.records.copiedFrom && `INSERT INTO ${t} (${storedColumns.join(', ')}) ${model.records.copiedFrom(n)}`,
    /** An edit rewrites every stored column but the key and the number, and the rendered ones. */
    update: updateOf(updated),
    keyAt: keyColumns.map((c) => storedColumns.indexOf(c)),
    deleteMany: byCount((count) => `DELETE FROM ${t} WHERE id IN (${valueList(count)})`),
    /** Records in the order of the table's primary key: rows inserted in it land on neighbouring pages. */
    order: orderOf(model.records),
    readOne: `SELECT ${read.columns.join(', ')} FROM ${t} WHERE ${byKey}`,
    readMany: byCount((count) => `SELECT id, ${read.columns.join(', ')} FROM ${t} WHERE id IN (${valueList(count)})`),
    idsWhere: (column: string) => `SELECT id FROM ${t} WHERE ${column} = ?`,
    unrendered: renderedColumns.map((c) => UNRENDERED[rendered[c]]),
    flushed,
    /** A patch changes only what the read columns hold: the flush rewrites them with the rendered ones. */
    rewrite: updateOf(patch === undefined ? [] : read.columns),
    ...otherTableStatements(model, n),
  };
}

/** The order of a table's primary key, for its records: their numbers', their partitions' and ids', or their ids'. */
function orderOf<R extends { id: number }>({ partition, numbered, clusteredByNumber }: RecordReadModel<R>['records']): (a: R, b: R) => number {
  if (clusteredByNumber) return (a, b) => (a[numbered!] as number) - (b[numbered!] as number);
  if (partition !== undefined) return (a, b) => compareKeys([...partition.of(a), a.id], [...partition.of(b), b.id]);
  return (a, b) => a.id - b.id;
}

/** The statements of the other tables a model reads (`sums`, `kept`) or writes (`sets`), every table named through `n`. */
function otherTableStatements<R extends { id: number }>(model: RecordReadModel<R>, n: TableNames) {
  return {
    kept: Object.fromEntries(Object.entries(model.kept ?? {}).map(([name, from]) => [name, rowValueSql(from, n)])),
    sums: Object.fromEntries(
      Object.entries(model.sums ?? {}).map(([name, { table: from, key, where, columns }]) => {
        // Cast: PostgreSQL sums bigints as numeric, which would come back as text.
        const select = `SELECT ${key}, ${columns.map((c) => `CAST(${c} AS BIGINT)`).join(', ')} FROM ${n(from)} WHERE ${where}`;
        return [name, { of: byCount((count) => `${select} AND ${key} IN (${valueList(count)}) GROUP BY ${key}`), all: `${select} GROUP BY ${key}` }];
      }),
    ),
    sets: Object.fromEntries(
      Object.entries(model.sets ?? {}).map(([set, columns]) => {
        const names = Object.keys(columns);
        return [set, byCount((rows) => `INSERT INTO ${n(set)} (${names.join(', ')}) VALUES ${placeholders(rows, names.length)} ON CONFLICT DO NOTHING`)];
      }),
    ),
  };
}
