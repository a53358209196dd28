import { type FaultLog, NotDurableError } from '../errors.ts';
import type { Settles, Writer } from '../port.ts';
import { MAX_BUSY_PAUSE_MS, retryWhileBusy } from './busy.ts';
import type { Sqlite } from './open.ts';
import { storageFaultOf } from '../storage-fault.ts';
import { WalSync } from './wal-sync.ts';

interface Job {
  work: () => unknown;
  settles: Settles;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit, the SQLite engine's `Writer`: the writes that arrive while a commit is on its way to disk share
 * the next one, and nobody waits for the disk on the event loop's thread. On a WAL database the connection
 * commits at synchronous=NORMAL (a commit's pages reach the WAL, no fsync): a group's writes are settled once
 * `WalSync` has fsynced the WAL on the thread pool, meanwhile requests are served and the next group commits.
 * A piece that settles at commit (`Settles`) is answered as soon as its group committed: the group asks for the
 * fsync only when it holds a piece that waits for it, and the WAL is one file, fsynced whole, so the next
 * durable group's fsync makes the earlier commits durable too.
 * (At synchronous=FULL better-sqlite3 would wait for every commit's fsync on the event loop: docs/performance.md.)
 * A database that is not in WAL mode commits at its own setting and settles at once.
 *
 * A write is visible to readers from its commit, a moment before it is durable and acknowledged. A crash in
 * that moment may lose it, and then every later write with it (WAL recovery stops at the first frame that
 * did not reach the disk), so no acknowledged write ever depends on a lost one.
 *
 * Each piece of work runs in its own savepoint inside one IMMEDIATE transaction, one piece after another (a
 * piece may await: its promise settles within the same turn on this engine, so no other code uses the
 * connection meanwhile). A piece that throws is rolled back alone and rejected, the others stand. Every piece but
 * one that settles at commit is settled only after the transaction committed and reached the disk, so an
 * acknowledged write is durable. When
 * the transaction as a whole fails (the commit itself, or an error after which SQLite rolled everything back),
 * every piece of the group is rejected and nothing of it is applied. While another process holds the write lock
 * the group waits asynchronously (`retryWhileBusy`), and work arriving meanwhile queues for the next group.
 */
export class GroupCommit implements Writer {
  private queue: Job[] = [];
  private draining = false;
  /** How many transactions have been committed (observability, and tests of the grouping). */
  commits = 0;
  private readonly committed: (() => void)[] = [];
  /** Undefined when the database is not in WAL mode. */
  private readonly wal: WalSync | undefined;
  /** Transaction control, prepared once: a group is one transaction, each piece a savepoint in it. */
  private readonly control;

  /**
   * `beforeCommit` runs in each group's transaction after its pieces (the projection checkpoints: once a group);
   * `faults` hears when commits start failing for a storage fault and when they succeed again.
   */
  constructor(
    private readonly db: Sqlite,
    private readonly beforeCommit: () => Promise<void> | void = () => {},
    private readonly faults?: FaultLog,
  ) {
    const walMode = db.pragma('journal_mode', { simple: true }) === 'wal';
    this.wal = walMode ? new WalSync(db.name) : undefined;
    // Every commit on this connection is made durable by an fsync of the WAL: see the class comment.
    if (walMode) db.pragma('synchronous = NORMAL');
    const statement = (sql: string) => db.prepare(sql);
    this.control = {
      begin: statement('BEGIN IMMEDIATE'),
      commit: statement('COMMIT'),
      rollback: statement('ROLLBACK'),
      savepoint: statement('SAVEPOINT piece'),
      release: statement('RELEASE piece'),
      undo: statement('ROLLBACK TO piece'),
    };
  }

  /** Runs `work` in the next group transaction; settles once that transaction is durable (or committed, asked for). */
  run<T>(work: () => Promise<T> | T, settles: Settles = 'durable'): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, settles, resolve: resolve as (value: unknown) => void, reject });
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
        outcomes = await retryWhileBusy(() => this.commitGroup(jobs));
      } catch (error) {
        const fault = storageFaultOf(error);
        // Only storage faults: a busy database or a bug is not the disk's state.
        if (fault) this.faults?.failed(fault);
        for (const job of jobs) job.reject(fault ?? error);
        continue;
      }
      this.faults?.succeeded();
      const settle = (i: number) => (outcomes[i].ok ? jobs[i].resolve(outcomes[i].value) : jobs[i].reject(outcomes[i].error));
      const waiting: number[] = [];
      jobs.forEach((job, i) => (job.settles === 'committed' ? settle(i) : waiting.push(i)));
      if (waiting.length === 0) continue;
      // Committed but perhaps not on disk: an fsync that fails leaves the outcome unknown, never acknowledged.
      this.durable().then(
        () => waiting.forEach(settle),
        (error: unknown) => waiting.forEach((i) => jobs[i].reject(new NotDurableError(error))),
      );
    }
    this.draining = false;
  }

  /**
   * From now on the connection waits for another process's write lock (an import, a seed, a second server) only
   * briefly inside SQLite, and the groups retry asynchronously (`retryWhileBusy`): a server's thread never blocks
   * on the lock, so reads keep being answered.
   */
  waitForLocksAsynchronously(): void {
    this.db.pragma('busy_timeout = 20');
  }

  /**
   * Leaves the write lock free long enough for another process's waiting writer to take it (its retries pause
   * at most `MAX_BUSY_PAUSE_MS`). A long run of groups (an import) calls this between them, so a server
   * writing to the same database takes turns with it instead of racing it for the lock.
   */
  giveTurn(): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, MAX_BUSY_PAUSE_MS + 5));
  }

  onCommit(listener: () => void): void {
    this.committed.push(listener);
  }

  /** Resolves once every write committed so far is on disk (a replayed answer waits for this). */
  durable(): Promise<void> {
    return this.wal ? this.wal.sync() : Promise.resolve();
  }

  close(): void {
    this.wal?.close();
  }

  /** One attempt at the group's transaction: its pieces in order, then the commit; rolled back when it fails. */
  private async commitGroup(jobs: Job[]): Promise<Outcome[]> {
    const { begin, commit, rollback } = this.control;
    begin.run();
    const outcomes: Outcome[] = [];
    try {
      for (const job of jobs) outcomes.push(await this.piece(job.work));
      await this.beforeCommit();
      commit.run();
    } catch (error) {
      if (this.db.inTransaction) rollback.run();
      throw error;
    }
    this.commits++;
    for (const listener of this.committed) listener();
    return outcomes;
  }

  private async piece(work: () => unknown): Promise<Outcome> {
    const { savepoint, release, undo } = this.control;
    savepoint.run();
    try {
      const value = await work();
      release.run();
      return { ok: true, value };
    } catch (error) {
      // Some errors (disk full, I/O) make SQLite roll back the whole transaction: nothing of the group stands.
      // A storage fault that left it open would fail the commit too: the group is given up at once.
      if (!this.db.inTransaction || storageFaultOf(error)) throw error;
      undo.run();
      release.run();
      return { ok: false, error };
    }
  }
}
