import type { SqlSession } from '../storage/sql.ts';
import { type Partition, type PartitionColumn, idCounts } from './id-counts.ts';
import { newIds } from './new-ids.ts';
import { numbers } from './numbers.ts';
import { type KeptValues, keptFromEvents, keptOrRead } from './kept-values.ts';

/**
 * How the row writer writes: `live`, a batch at a time into tables read meanwhile, each transaction leaving them
 * whole; `build`, the whole log into new tables nothing reads until the build ends. Chosen once, when a read model
 * is bound; the read models know neither.
 */
export interface WriteStrategy {
  /** What is known of a table's ids (`new-ids.ts`): a build keeps each partition's highest across its transactions. */
  ids(session: SqlSession, table: string, partition?: readonly string[]): NewIds;
  /** The id counts of a table kept up row by row (live), or left to the build's end, which counts the loaded ids at once. */
  counts(session: SqlSession, table: string, partition?: readonly PartitionColumn[]): IdCounts;
  /** The numbers of a table's rows in the order they are added (`numbers.ts`): a build reads the highest once. */
  numbers(session: SqlSession, table: string, column: string): Numbers;
  /**
   * Whether a new record is rendered as it is written. Live always: a narrow row rewritten at the flush would cost
   * PostgreSQL a second version of the row and of its index entries. A build only above every id so far: on
   * SQLite wide rows inserted all over the table split its pages, where narrow ones rewritten in id order at the
   * flush stay on neighbouring pages (both measured in docs/performance.md).
   */
  rendersAtAdd(known: NewIds, partition: Partition, id: number): boolean | Promise<boolean>;
  /**
   * How a render's sums over other read models' rows are read (`RenderContext.sums`): live, for the records
   * rendered (an index range each); in a build, not while the log is applied (what they sum is still coming in, and
   * the read index is built at the end), and at the flush for every record at once, in one pass over the rows.
   */
  sums: 'of-the-records' | 'all-at-the-flush';
  /**
   * Which records' served rows (`RecordReadModel.served`, `served-rows.ts`) the flush renders: live, those touched
   * since the last flush; a build, every record once, at its end (each touched anyway), their figures from what was
   * kept of every record (`LinkedFigures.kept`: a document's component known in memory rather than read back), and
   * nothing needs rendering before.
   */
  renders: 'the-records-touched' | 'every-record-at-the-end';
  /**
   * Rows that are a copy of other read models' rows (`RecordTable.copiedFrom`): kept up event by event live; a
   * build copies them once those are flushed, with one statement, and does nothing for them per event.
   */
  derivedRows: 'kept-up' | 'copied-at-the-end';
  /**
   * Where rows derived from a record (`RecordReadModel.children`) go as it changes: live, into their table; a build,
   * appended to a staging table beside it and moved into it once, at the flush, in its key's order (`ChildRows.key`).
   * Words of product names inserted as products come land all over their table's pages, every transaction dirtying
   * most of them again; sorted once they are written page after page (docs/performance.md).
   */
  childRows: 'in-place' | 'staged-and-sorted';
  /**
   * Values taken from other read models' records, kept from the events that set them (`kept-values.ts`): live,
   * read with `read` when not kept, `limit` at most; a build reads none (one not kept is `none`).
   */
  kept<V>(read: (id: number) => Promise<V>, none: V, limit: number): KeptValues<V>;
}

export type NewIds = ReturnType<typeof newIds>;
export type IdCounts = ReturnType<typeof idCounts>;
export type Numbers = ReturnType<typeof numbers>;

/** The id counts of a build: none kept up (it counts the loaded rows at its end), and of a table not paged by id. */
export const NO_COUNTS: IdCounts = { add: () => {}, remove: () => {}, persist: async () => {}, discard: () => {} };

export const liveWrites: WriteStrategy = {
  ids: (session, table, partition) => newIds(session, table, partition),
  counts: (session, table, partition) => idCounts(session, table, partition),
  numbers: (session, table, column) => numbers(session, table, column),
  rendersAtAdd: () => true,
  sums: 'of-the-records',
  renders: 'the-records-touched',
  derivedRows: 'kept-up',
  childRows: 'in-place',
  kept: (read, _none, limit) => keptOrRead(read, limit),
};

export const buildWrites: WriteStrategy = {
  ids: (session, table, partition) => newIds(session, table, partition, true),
  counts: () => NO_COUNTS,
  numbers: (session, table, column) => numbers(session, table, column, true),
  rendersAtAdd: (known, partition, id) => known.above(partition, id),
  sums: 'all-at-the-flush',
  renders: 'every-record-at-the-end',
  derivedRows: 'copied-at-the-end',
  childRows: 'staged-and-sorted',
  kept: (_read, none) => keptFromEvents(none),
};
