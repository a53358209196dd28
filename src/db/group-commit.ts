import { retryWhileBusy } from './busy.ts';
import type { Sqlite } from './open.ts';

interface Job {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit: the writes that arrive while a commit is on its way to disk share the next one. With
 * synchronous=FULL every commit waits for an fsync, and better-sqlite3 waits on the event loop's thread, so
 * requests pile up meanwhile; committing them one by one would pay one fsync each.
 *
 * Each piece of work runs in its own savepoint inside one IMMEDIATE transaction: a piece that throws is
 * rolled back alone and rejected, the others stand. Every piece is settled only after the transaction
 * committed, so an acknowledged write is on disk. When the transaction as a whole fails (the commit itself,
 * or an error after which SQLite rolled everything back), every piece of the group is rejected and nothing
 * of it is applied. While another process holds the write lock the group waits asynchronously
 * (`retryWhileBusy`), and work arriving meanwhile queues for the next group.
 */
export class GroupCommit {
  private queue: Job[] = [];
  private draining = false;
  /** How many transactions have been committed (observability, and tests of the grouping). */
  commits = 0;

  constructor(private readonly db: Sqlite) {}

  /** Runs `work` in the next group transaction; settles once that transaction is durable. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.draining) {
        this.draining = true;
        // After the I/O callbacks of this turn: every request already read joins the group.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const jobs = this.queue;
      this.queue = [];
      let outcomes: Outcome[];
      try {
        outcomes = await retryWhileBusy(() => this.commit(jobs));
      } catch (error) {
        for (const job of jobs) job.reject(error);
        continue;
      }
      outcomes.forEach((outcome, i) => (outcome.ok ? jobs[i].resolve(outcome.value) : jobs[i].reject(outcome.error)));
    }
    this.draining = false;
  }

  private commit(jobs: Job[]): Outcome[] {
    const outcomes = this.db
      .transaction(() =>
        jobs.map((job): Outcome => {
          try {
            // Nested in a transaction, better-sqlite3 makes this a savepoint, undone when `work` throws.
            return { ok: true, value: this.db.transaction(job.work)() };
          } catch (error) {
            // Some errors (disk full, I/O) make SQLite roll back the whole transaction: nothing of the group stands.
            if (!this.db.inTransaction) throw error;
            return { ok: false, error };
          }
        }),
      )
      .immediate();
    this.commits++;
    return outcomes;
  }
}
