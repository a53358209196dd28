import type { EventMeta, NewEvent, StoredEvent } from '../events/rows.ts';

/**
 * The storage seam for writes, as the use cases see it: nothing engine-specific. Every call answers with a
 * promise, so an engine that talks over a network (PostgreSQL) fits the same shape as the embedded one (SQLite,
 * `sqlite/`), whose promises are settled at once.
 */

/**
 * The one writer of a database: the server's requests, an import and a seed all write through it, so they take
 * turns instead of racing each other for the lock.
 */
export interface Writer {
  /**
   * Runs `unit` in the next group transaction, in a savepoint of its own, and settles once that transaction is
   * durable. A unit that throws is undone alone and rejected with its error, and the rest of its group stands;
   * when the group as a whole fails (a storage fault, the lock held past the budget), every unit of it is
   * rejected with the engine-neutral error of `errors.ts` and nothing of the group is applied.
   */
  run<T>(unit: () => Promise<T> | T): Promise<T>;
  /** Resolves once every write committed so far is durable (a replayed answer waits for this). */
  durable(): Promise<void>;
  /**
   * Leaves the lock free long enough for another process's writer to take it: a long run of groups (an import)
   * calls this between them.
   */
  giveTurn(): Promise<void>;
}

/** The append-only log as writes use it. */
export interface EventLog {
  /**
   * Appends `events` with `meta` inside the unit of work running on the writer, and applies them to the read
   * tables in the same transaction: log and read tables commit together or not at all.
   */
  append(events: NewEvent[], meta: EventMeta): Promise<StoredEvent[]>;
}
