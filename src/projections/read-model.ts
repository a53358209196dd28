import type { ColumnType } from '../storage/dialect.ts';
import type { SqlSession } from '../storage/sql.ts';
import type { StoredEvent } from '../events/rows.ts';
import type { Projector, TableNames } from './projector.ts';
import type { Partition, PartitionColumn } from './id-counts.ts';

/** By event type, how an event of that type changes a read model's records, told to `changes`; a promise only when it must read. */
export type EventHandlers<R extends { id: number }> = {
  readonly [T in StoredEvent['type']]?: (event: Extract<StoredEvent, { type: T }>, changes: RecordChanges<R>) => Promise<void> | void;
};

/** Columns by name, in the order they are written, each with its type. */
export type Columns = Readonly<Record<string, ColumnType>>;

/**
 * A read model as a declaration: its tables, its records' table and key, the events it reads, how an event changes
 * its records, how a record is rendered to the served bytes, and which lists it pages. It holds no SQL that writes
 * and no flush logic: the row writer (`row-writer.ts`) writes its rows, live or in a build (`write-strategies.ts`).
 * Its name, version, order, tables and indexes are a `Projector`'s.
 */
export interface RecordReadModel<R extends { id: number }> extends Pick<Projector, 'name' | 'version' | 'after' | 'tables' | 'schema' | 'readIndexes'> {
  records: RecordTable<R>;
  /** How each event type it reads changes its records; every other event leaves them as they are. */
  on: EventHandlers<R>;
  /** Those of the types it reads whose `data.id` is a new record's (a batch's are looked up at once). */
  adds: readonly StoredEvent['type'][];
  /** The key of the record an event of `adds` adds, for a partitioned table (`RecordTable.partition`): its partition's values and id. */
  addedKey?(event: StoredEvent): readonly [Partition, number];
  /** Renders records' served columns (`records.rendered`, in order), a batch at a time; none when there are none. */
  render?(records: R[], context: RenderContext): Promise<unknown[][]> | unknown[][];
  /** Values of other read models' tables a render reads, each read once until the next flush, by name. */
  lookups?: Readonly<Record<string, Lookup<R>>>;
  /** Sums over other read models' rows a render reads for a batch of records (`RenderContext.sums`), by name. */
  sums?: Readonly<Record<string, Sums>>;
  /** Rows of other tables derived from a record, replaced when a change leaves others. */
  children?: readonly ChildRows<R>[];
  /** Tables of keys noted once (`RecordChanges.note`), with their columns: e.g. the statuses contractors were given. */
  sets?: Readonly<Record<string, Columns>>;
  /** Values of other read models' records kept from the events that set them (`RecordChanges.keep`, `kept`), by name. */
  kept?: Readonly<Record<string, KeptValue>>;
  /** A table of rows rendered from the records at the flush and served apart from them (a document's list row). */
  served?: ServedRows<R>;
  /**
   * Records of another read model (`model`, whose records are its own type) rendered again at the flush when a
   * record naming them (`ids`) is added or changed: a document's contractor, whose balances sum its documents.
   */
  refreshes?: { model: RecordReadModel<any>; ids(record: R): number[] };
}

/**
 * A value of another read model's row: `table`'s `column` of an id, made into what is wanted by `value` (given
 * `undefined` when there is no row; the value as stored without it), at most `limit` kept at a time.
 */
export interface RowValue {
  table: string;
  column: string;
  value?(stored: unknown): unknown;
  limit?: number;
}

/**
 * A value a render reads (`RecordReadModel.lookups`), all of them kept without a `limit`. `of`, when given, is the
 * id a record looks up (`undefined`: none): those of a batch of records are read at once before its rendered
 * columns are (a price batch's products' brands), and a build's before each batch of served rows it renders, a
 * statement a hundred (a live served row's are read when first asked for).
 */
export interface Lookup<R> extends RowValue {
  of?(record: R): number | undefined;
}

/**
 * A value of another read model's record an add takes (a contractor's bonus percent, for a sale), kept by that
 * record's id as events set it (`kept-values.ts`): one not kept is read from live as a `RowValue`; `none` is the
 * value of none.
 */
export interface KeptValue extends RowValue {
  value(stored: unknown): unknown;
  none: unknown;
  limit: number;
}

/**
 * Sums over `table`'s rows (those `where` holds) grouped by its column `key`, a record's id: `columns` are their SQL
 * (read as integers). A record without rows is not among them.
 */
export interface Sums {
  table: string;
  key: string;
  where: string;
  columns: readonly string[];
}

/** The table of a read model's records: one row a record, keyed by `id` (within its `partition`, when it has one). */
export interface RecordTable<R> {
  table: string;
  /** Columns written from the record whenever it changes, `id` among them, and their values for a record (a new array each time). */
  stored: Columns;
  row(record: R): unknown[];
  /**
   * Stored columns whose values, with `id`, identify a record (its ids are unique within them: a document's
   * type), and their values for a record. A partitioned table's rows are written whole: no rendered columns, no
   * patches, no unique columns.
   */
  partition?: { columns: readonly string[]; of(record: R): Partition };
  /**
   * A stored field, named as its column, numbering the records in the order they are first added (`numbers.ts`):
   * the writer sets it on a new record, and never rewrites it.
   */
  numbered?: keyof R & string;
  /**
   * The table whose `numbered` column the numbers follow, when not this one: one of a read model applied first
   * that numbers the same records in the same order, its highest read through its key where this table has no
   * index on the column.
   */
  numberedAs?: string;
  /** Whether `numbered` is the table's primary key: new rows then go in in their numbers' order, not their key's. */
  clusteredByNumber?: boolean;
  /**
   * Stored fields an add gives a record once, besides its number (a sale's bonus percent, taken from `kept` when it
   * is recorded): an add applied again keeps the record's; an edit keeps them by leaving them as they are.
   */
  givenOnce?: readonly (keyof R & string)[];
  /**
   * The values of the stored columns the table holds UNIQUE besides its key, for a record: a batch may move them
   * between records (product A's SKU to B, A's to another), which the writer keeps to whatever order rows are
   * written in.
   */
  unique?(record: R): readonly unknown[];
  /** The stored columns a record is read back from, and how. */
  read: { columns: readonly string[]; record(values: unknown[]): R };
  /** The served bytes: columns rendered from the record and what `render` reads besides. */
  rendered: Columns;
  /** Merges changes of fields held only in the `read` columns (no index reads them) into a record: see `RecordChanges.patch`. */
  patch?(record: R, changes: Partial<R>): R;
  /** The table counting its ids in nested ranges (`id-counts.ts`), for its lists paged in id order. */
  pagedBy?: string;
  /**
   * The same rows as a `SELECT` of the stored columns, in order, from the tables of read models it comes `after`:
   * where the strategy copies such rows (`WriteStrategy.derivedRows`), they are copied at once when those are
   * flushed instead of written event by event.
   */
  copiedFrom?(names: TableNames): string;
  /** The partition `pagedBy` counts each record's id in (e.g. a document's type and month): a record edited into another moves. */
  pagedWithin?: { columns: readonly PartitionColumn[]; of(record: R): Partition };
}

/**
 * Rows of another table derived from a record (e.g. a contractor's phones, a document's links), written by the row
 * writer's `childRowsWriter` (`child-rows.ts`): `parent` names the columns holding the record's key (its id, or a
 * partitioned record's partition and id), `parentKey` gives their values for a record.
 */
export interface ChildRows<R> {
  table: string;
  parent: readonly string[];
  parentKey(record: R): unknown[];
  columns: Columns;
  /** The columns of the table's primary key, in order: where given, a build stages the rows and moves them sorted by them. */
  key?: readonly string[];
  rows(record: R): unknown[][];
}

/**
 * Rows of a table of their own rendered from the records (`RecordReadModel.served`), one a record, keyed by the
 * record's number (`RecordTable.numbered`), with figures each takes from the records linked to it (`figures`).
 * The row writer renders them at the flush (write-behind: once however many events touched a record), live those
 * touched since the last flush, in a build every record once at its end (`WriteStrategy.renders`).
 */
export interface ServedRows<R, F = unknown> {
  table: string;
  /**
   * Its columns, the key first, in the order `render` gives their values. Those named as the records' partition
   * columns and `id` hold the record's key, which never changes: a row rendered again leaves them.
   */
  columns: Columns;
  /** A record's row, from the record, its figures and the model's `lookups`. */
  render(record: R, figures: F, context: RenderContext): Promise<unknown[]> | unknown[];
  figures: LinkedFigures<R, F>;
}

/**
 * Figures a record takes from the records linked to it (its group: a document's component, every document its
 * links reach either way), computed for a whole group at once.
 */
export interface LinkedFigures<R, F> {
  /** Whether a record's change from `before` moves its group's figures: then the whole group is rendered again. */
  moves(record: R, before: R): boolean;
  /** Of a change that moves them: other records, by partition and id, whose groups move too (a parent it left may head one of its own). */
  left(record: R, before: R): readonly (readonly [Partition, number])[];
  /** Live: the records of the groups of the records with these numbers, each with its figures, read from the tables. */
  read(session: SqlSession, names: TableNames): (numbers: number[]) => Promise<Iterable<readonly [R, F]>>;
  /** A build: what is kept of every record as it is written, each one's figures found from it at the end. */
  kept(): KeptFigures<R, F>;
  /** A record's figures as its served row holds them (`columns`' values): a change that moves none renders it with these. */
  served: { columns: readonly string[]; figures(values: unknown[]): F };
}

/** What a build keeps of the records to find their figures at its end (`LinkedFigures.kept`). */
export interface KeptFigures<R, F> {
  set(record: R): void;
  /** A record's figures once every event is applied: each asked for once. */
  figures(record: R): F;
  forget(): void;
}

/** What an event may do to a read model's records; the row writer decides when and how each is written. */
export interface RecordChanges<R> {
  /** A new record (one already there, an event applied again, is replaced). */
  add(record: R): Promise<void> | void;
  /**
   * A record changed from what it is now (`undefined` when there is none, nothing is written); `partition` holds
   * its partition's values in a partitioned table.
   */
  edit(id: number, change: (current: R | undefined) => R | undefined, partition?: Partition): Promise<void>;
  /** Changes merged into a record without reading it (many price updates of one product render it once). */
  patch(id: number, changes: Partial<R>): void;
  /** The records whose stored `column` holds `value` are rendered again, `lookup`'s value of `value` read anew. */
  rerenderWhere(column: string, value: number, lookup?: string): Promise<void>;
  /** A row of one of `sets` (written once, a duplicate ignored). */
  note(set: string, row: unknown[]): void;
  /** An event set the value `name` (of `kept`) of the other read model's record `id`. */
  keep(name: string, id: number, value: unknown): void;
  /** The value `name` (of `kept`) of the other read model's record `id`: as kept, else as the strategy finds it. */
  kept(name: string, id: number): unknown;
}

/** What a render reads besides the record: the model's `lookups`, each value read once until the next flush. */
export interface RenderContext {
  lookup(name: string, id: number): Promise<unknown> | unknown;
  /** The model's `sums` named `name` for these records, by id (the write strategy decides how they are read). */
  sums(name: string, ids: number[]): Promise<Map<number, number[]>>;
}
