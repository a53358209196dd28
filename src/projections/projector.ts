import type { ReadModelDialect } from '../storage/dialect.ts';
import { ROWS_PER_STATEMENT, type SqlSession } from '../storage/sql.ts';
import type { StoredEvent } from '../events/rows.ts';
import type { IdPaging } from './id-counts.ts';
import type { WriteStrategy } from './write-strategies.ts';

// Declared in storage, which names tables for builds beside the served ones too.
import type { TableNames } from '../storage/read-tables.ts';
export { type TableNames, servedNames } from '../storage/read-tables.ts';

/**
 * A read model: the tables it owns, how to create them, and how one event changes them.
 * `version` is bumped whenever the tables or the way events map onto them change; a stored version that
 * differs from the code's makes the projection rebuild from the log.
 */
export interface Projector {
  name: string;
  version: number;
  /**
   * The read models whose tables this one reads or rewrites, expecting them to hold what the event being
   * applied changed: each event is applied to them first, and their deferred work is flushed first.
   */
  after: readonly string[];
  tables: string[];
  /** The statements creating its tables and the indexes it reads through itself, every name mapped by `names`. */
  schema(names: TableNames, dialect: ReadModelDialect): string[];
  /** Indexes only the reads (the API, the commands) use: a rebuild creates them after its bulk load. */
  readIndexes(names: TableNames): string[];
  /** The event handler writing through `session`, as `strategy` writes (live or in a build). Must be idempotent per event. */
  bind(session: SqlSession, names: TableNames, strategy: WriteStrategy): EventHandler;
  /** The tables whose ids it counts in nested ranges (`id-counts.ts`), served names: a build counts them at its end. */
  countedIds?: readonly IdPaging[];
}

/**
 * Applies one event to a projector's tables. A handler may defer part of the work (rendering a record's views
 * once however many events touched it) until its `flush`, which `Projections` calls before the transaction
 * commits: after every appended record, and at the end of a rebuild, in steps of a few thousand items, each its
 * own transaction. `flush` does at most `budget.left` items (counting them off) and tells whether none is left.
 * `persist` writes rows the handler keeps back to write many at once (a batch of adds in one statement); it writes
 * them itself before handling any event it does not keep back, so other projectors find them, and `Projections`
 * calls it at the end of every apply and replayed chunk. `discard` forgets deferred work and rows kept back when
 * applying failed (its transaction is rolled back). `prepare` sees an appended batch before its events are handled,
 * to read at once what they will ask for one by one.
 */
export type EventHandler = ((event: StoredEvent) => Promise<void> | void) & {
  prepare?: (events: readonly StoredEvent[]) => Promise<void> | void;
  persist?: () => Promise<void> | void;
  flush?: (budget: FlushBudget) => Promise<boolean>;
  discard?: () => void;
};

export interface FlushBudget {
  left: number;
}

/** Does the work of each pending item (a Set, or a Map's keys) in order and removes it, while the budget lasts; true when none is left. */
export async function drain<K>(pending: Set<K> | Map<K, unknown>, budget: FlushBudget, work: (item: K) => Promise<void>): Promise<boolean> {
  for (const item of pending.keys()) {
    if (budget.left <= 0) return false;
    budget.left--;
    await work(item);
    pending.delete(item);
  }
  return true;
}

/** Like `drain`, a statement's worth of items at a time (`work` reads or writes them together); true when none is left. */
export async function drainInChunks<K>(pending: Set<K> | Map<K, unknown>, budget: FlushBudget, work: (items: K[]) => Promise<void>): Promise<boolean> {
  while (pending.size > 0) {
    if (budget.left <= 0) return false;
    const items = [...take(pending.keys(), Math.min(budget.left, ROWS_PER_STATEMENT))];
    budget.left -= items.length;
    await work(items);
    for (const item of items) pending.delete(item);
  }
  return true;
}

/**
 * Like `drainInChunks`, with each chunk's rows read (`read`) before the work on the chunk before it: a network
 * engine reads the next rows meanwhile.
 */
export async function drainReadingAhead<K, R>(
  pending: Set<K> | Map<K, unknown>,
  budget: FlushBudget,
  read: (items: K[]) => Promise<R>,
  work: (items: K[], rows: R) => Promise<void>,
): Promise<boolean> {
  const chunkAfter = (skipped: number) => [...take(drop(pending.keys(), skipped), Math.min(budget.left, ROWS_PER_STATEMENT))];
  let items = chunkAfter(0);
  let rows = items.length > 0 ? read(items) : undefined;
  while (items.length > 0) {
    budget.left -= items.length;
    const next = chunkAfter(items.length);
    const nextRows = next.length > 0 ? read(next) : undefined;
    // Awaited below; a failure before then must not leave it rejected unhandled.
    nextRows?.catch(() => {});
    await work(items, await rows!);
    for (const item of items) pending.delete(item);
    [items, rows] = [next, nextRows];
  }
  return pending.size === 0;
}

/**
 * Puts the entries of `pending` in id order (when they are not already): rows rewritten in id order land on
 * neighbouring pages, where the log's order (any) would send each to a page far from the last one's.
 */
export function inIdOrder<V>(pending: Map<number, V>): void {
  let previous = -Infinity;
  for (const id of pending.keys()) {
    if (id < previous) {
      const entries = [...pending].sort(([a], [b]) => a - b);
      pending.clear();
      for (const [key, value] of entries) pending.set(key, value);
      return;
    }
    previous = id;
  }
}

/** The items after the first `count`. */
function drop<T>(items: Iterator<T>, count: number): Iterator<T> {
  for (let n = 0; n < count && !items.next().done; n++);
  return items;
}

/** The first `count` items (fewer when there are fewer). */
function* take<T>(items: Iterator<T>, count: number): Generator<T> {
  for (let n = 0; n < count; n++) {
    const next = items.next();
    if (next.done) return;
    yield next.value;
  }
}
