import type { SqlSession } from '../storage/sql.ts';
import { idCounts } from './id-counts.ts';
import { newIds } from './new-ids.ts';
import type { ApplyMode } from './projector.ts';

/**
 * How the row writer writes: `live`, a batch at a time into tables read meanwhile, each transaction leaving them
 * whole; `build`, the whole log into new tables nothing reads until the build ends. Chosen once, when a read model
 * is bound; the read models know neither.
 */
export interface WriteStrategy {
  /** What is known of a table's ids (`new-ids.ts`): a build keeps each partition's highest across its transactions. */
  ids(session: SqlSession, table: string): NewIds;
  /** The id counts of a table kept up row by row (live), or left to the build's end, which counts the loaded ids at once. */
  counts(session: SqlSession, table: string): IdCounts;
  /**
   * Whether a new record is rendered as it is written. Live always: a narrow row rewritten at the flush would cost
   * PostgreSQL a second version of the row and of its index entries. A build only above every id so far: on
   * SQLite wide rows inserted all over the table split its pages, where narrow ones rewritten in id order at the
   * flush stay on neighbouring pages (both measured in docs/performance.md).
   */
  rendersAtAdd(known: NewIds, id: number): boolean | Promise<boolean>;
  /**
   * How a render's sums over other read models' rows are read (`RenderContext.sums`): live, for the records
   * rendered (an index range each); in a build, not while the log is applied (what they sum is still coming in, and
   * the read index is built at the end), and at the flush for every record at once, in one pass over the rows.
   */
  sums: 'of-the-records' | 'all-at-the-flush';
}

export type NewIds = ReturnType<typeof newIds>;
export type IdCounts = ReturnType<typeof idCounts>;

const strategy = (mode: ApplyMode, rendersAtAdd: WriteStrategy['rendersAtAdd'], sums: WriteStrategy['sums']): WriteStrategy => ({
  ids: (session, table) => newIds(session, table, [], mode),
  counts: (session, table) => idCounts(session, table, [], mode),
  rendersAtAdd,
  sums,
});

export const liveWrites = strategy('live', () => true, 'of-the-records');
export const buildWrites = strategy('build', (known, id) => known.above([], id), 'all-at-the-flush');

export const writeStrategy = (mode: ApplyMode): WriteStrategy => (mode === 'build' ? buildWrites : liveWrites);
