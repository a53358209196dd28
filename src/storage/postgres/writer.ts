import { AsyncLocalStorage } from 'node:async_hooks';
import type { LogHead } from '../../events/rows.ts';
import { BUSY_BUDGET_MS, NotDurableError, ReadModelsDifferError } from '../errors.ts';
import type { Settles, Writer } from '../port.ts';
import type { Sql } from './connection.ts';
import { connectionLost, storageErrorOf } from './errors.ts';
import { LOG_CHANGES_CHANNEL } from './log-changes.ts';
import { PipelinedSql } from './pipeline.ts';
import { chunks } from '../sql.ts';

interface Job {
  unit: () => unknown;
  settles: Settles;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Units a group transaction holds at most: each runs in a savepoint, and PostgreSQL keeps only 64
 * subtransactions of a transaction in memory before it slows sharply.
 */
export const UNITS_PER_GROUP = 50;

/** How long a lost COMMIT's outcome is asked for: a backend whose client went away ends its transaction soon after. */
const FATE_ATTEMPTS = 20;
const FATE_INTERVAL_MS = 100;

/**
 * The PostgreSQL engine's `Writer`: the units that arrive while a group is on its way share the next group
 * transaction, on a connection of the writer's own. Every group starts by locking the chain head's row and holds
 * that lock to its commit, so the writers of every server and CLI process on the database take turns: seq is
 * dense and in commit order, and whatever a unit decides under the lock (new ids, uniqueness) stays true until
 * it commits. READ COMMITTED: each statement sees what the previous holder of the lock committed (a snapshot
 * taken before the lock was granted would not).
 *
 * Each unit runs in a savepoint: a unit that throws is rolled back alone and rejected, the others stand. A lock
 * waited for past the budget, or a storage fault, fails the group as a whole: every unit is rejected with the
 * engine-neutral error and nothing is applied. Units settle after COMMIT returned at synchronous_commit=on, that
 * is once the commit is on disk. Units that settle at commit (`Settles`) go in groups of their own, ahead of the
 * others waiting, that commit at synchronous_commit=off: COMMIT returns without waiting for the WAL's flush, and
 * the next synchronous commit (of any server on the database: the WAL is one, flushed in order) flushes it too.
 *
 * The lock is held while the group's statements travel to the database and back, so statements without an
 * answer to read (BEGIN, the savepoints, the units' inserts and updates) are pipelined (`PipelinedSql`): they
 * travel with the next statement awaited: a group costs a round trip for each read, one to settle each unit and one
 * before COMMIT, so that only the loss of COMMIT itself leaves an outcome unknown.
 */
export class PostgresWriter implements Writer {
  private queue: Job[] = [];
  /** The groups the queue was last cut into, still to commit; what arrives meanwhile waits for them. */
  private groups: Job[][] = [];
  private draining = false;
  /** Marks what a running unit calls and awaits: other requests' calls run meanwhile, outside it. */
  private readonly units = new AsyncLocalStorage<true>();
  /** How many group transactions have been committed (observability, and tests of the grouping). */
  commits = 0;
  private readonly committed: (() => void)[] = [];
  /**
   * The log's head while a group holds its lock: read with the lock, moved by each append. No one else appends
   * meanwhile, so an append needs no query for it; a unit rolled back puts it back.
   */
  private head: LogHead | undefined;

  /** How long a group waits for a lock (another writer's chain head) before it fails as busy. */
  private readonly lockBudgetMs: number;
  /** The names and versions of the read models this process keeps, as one string, when it keeps any. */
  private readonly readModels: string | undefined;
  /** Runs in each group's transaction after its units (the read models' checkpoints: once a group). */
  private readonly beforeCommit: () => Promise<void>;

  /** The writer's own connection, pipelined: BEGIN, the savepoints and COMMIT are statements on it. */
  readonly session: PipelinedSql;

  /** Another connection, to ask whether a group whose COMMIT lost its answer committed (none: the outcome stays unknown). */
  private readonly fateOn: Sql | undefined;

  constructor(connection: Sql, options: { lockBudgetMs?: number; readModels?: string; beforeCommit?: () => Promise<void>; fateOn?: Sql } = {}) {
    this.session = new PipelinedSql(connection);
    this.lockBudgetMs = options.lockBudgetMs ?? BUSY_BUDGET_MS;
    this.readModels = options.readModels;
    this.beforeCommit = options.beforeCommit ?? (async () => {});
    this.fateOn = options.fateOn;
  }

  /** Whether the caller runs inside a unit of this writer (not merely while one runs). */
  private get inUnit(): boolean {
    return this.units.getStore() === true;
  }

  /**
   * Where a read of the caller runs: inside a unit on the session, where it sees its group's own work and decides
   * under the chain head's lock; anywhere else on `pool`, which sees committed work only.
   */
  readsOn(pool: Sql): Sql {
    return this.inUnit ? this.session : pool;
  }

  /** The session, for `what`, a write: it runs only inside a unit, so it commits with the group. */
  writesFor(what: string): Sql {
    if (!this.inUnit) throw new Error(`${what} must run inside a unit of the writer`);
    return this.session;
  }

  /** The log's last event as the group holding the lock has left it so far (only inside a unit). */
  logHead(): LogHead {
    if (!this.inUnit || this.head === undefined) throw new Error('the log head is known only inside a unit of the writer');
    return this.head;
  }

  /** An append inside a unit moved the log's head to `head`. */
  headMoved(head: LogHead): void {
    this.logHead();
    this.head = head;
  }

  run<T>(unit: () => Promise<T> | T, settles: Settles = 'durable'): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ unit, settles, resolve: resolve as (value: unknown) => void, reject });
      if (!this.draining) {
        this.draining = true;
        // After the I/O callbacks of this turn: every request already read joins the group.
        setImmediate(() => void this.drain());
      }
    });
  }

  onCommit(listener: () => void): void {
    this.committed.push(listener);
  }

  /** A durable group's COMMIT returns at synchronous_commit=on only once it is on disk, and its units settle after it: nothing to wait for. */
  durable(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * PostgreSQL queues the waiters of a row lock, so another process's group waiting for the chain head is granted
   * it before this writer's next group: there is no turn to give.
   */
  giveTurn(): Promise<void> {
    return Promise.resolve();
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0 || this.groups.length > 0) {
      const jobs = this.nextGroup();
      let outcomes: Outcome[];
      try {
        outcomes = await this.commitGroup(jobs, jobs[0].settles);
      } catch (error) {
        const failure = storageErrorOf(error) ?? error;
        for (const job of jobs) job.reject(failure);
        continue;
      }
      outcomes.forEach((outcome, i) => (outcome.ok ? jobs[i].resolve(outcome.value) : jobs[i].reject(outcome.error)));
    }
    this.draining = false;
  }

  /**
   * The next group. When none is left, the queue is cut into groups of at most `UNITS_PER_GROUP`, each unit in its
   * order: first the units that settle at commit (answered without waiting for the disk, so the others' flush
   * does not hold them), then the units that wait for it. Units arriving meanwhile wait for all of them, so a
   * stream of tokens never holds the writes back.
   */
  private nextGroup(): Job[] {
    if (this.groups.length === 0) {
      const settling = (settles: Settles) => chunks(this.queue.filter((job) => job.settles === settles), UNITS_PER_GROUP);
      this.groups = [...settling('committed'), ...settling('durable')];
      this.queue = [];
    }
    return this.groups.shift()!;
  }

  /** The group's transaction: the chain head's lock, its units in order, the commit; rolled back when it fails. */
  private async commitGroup(jobs: Job[], settles: Settles): Promise<Outcome[]> {
    const { session } = this;
    const outcomes: Outcome[] = [];
    try {
      await session.run('BEGIN ISOLATION LEVEL READ COMMITTED');
      // SET LOCAL, with the budget as a parameter: a lock wait past it fails the group, and COMMIT returns once on
      // disk (or, for units that settle at commit, once committed).
      await session.run("SELECT set_config('lock_timeout', $1, true), set_config('synchronous_commit', $2, true)", [
        `${this.lockBudgetMs}ms`,
        settles === 'durable' ? 'on' : 'off',
      ]);
      // Outside the savepoints: a unit rolled back must not release the lock.
      // With the transaction's id: should COMMIT's answer be lost, another connection can ask what became of it.
      const head = await session.sql<LogHead & { read_models: string | null; xid: string }>(
        'SELECT seq, hash, projectors AS read_models, CAST(pg_current_xact_id() AS text) AS xid FROM chain_head WHERE id = 1 FOR UPDATE',
      );
      // Without its row the lock would guard nothing, and writers would race for seqs.
      if (head.length !== 1) throw new Error('the chain_head table has lost its row: writes are refused');
      await this.checkReadModels(head[0].read_models);
      this.head = { seq: head[0].seq, hash: head[0].hash };
      if (jobs.length === 1) {
        // A unit alone (a server's write, most often) needs no savepoint: undoing it is undoing the group.
        const outcome = await this.settle(jobs[0].unit);
        if (!outcome.ok) {
          await this.rollBack();
          return [outcome];
        }
        outcomes.push(outcome);
      } else for (const job of jobs) outcomes.push(await this.unit(job.unit));
      // Inside the lock as a unit is: what it writes commits with the group.
      await this.units.run(true, this.beforeCommit);
      // Heard by every server's followers once the group commits, and never when it does not.
      if (this.head.seq > head[0].seq) await session.run('SELECT pg_notify($1, $2)', [LOG_CHANGES_CHANNEL, String(this.head.seq)]);
      // Answered before COMMIT is sent: a connection lost now has applied nothing, and only COMMIT's own loss
      // leaves the outcome unknown.
      await session.settled();
      await this.commit(head[0].xid);
    } catch (error) {
      // A connection that broke has lost the transaction with it: its ROLLBACK failing changes nothing.
      await this.rollBack().catch(() => {});
      throw error;
    } finally {
      this.head = undefined;
    }
    this.commits++;
    for (const listener of this.committed) listener();
    return outcomes;
  }

  /** Rolls the group back once every statement sent is answered (a late failure is not blamed on the next group). */
  private async rollBack(): Promise<void> {
    await this.session.reset();
    await this.session.sql('ROLLBACK');
  }

  /**
   * COMMIT. A connection lost meanwhile leaves the outcome to be asked of another connection: PostgreSQL keeps what
   * became of each transaction. Committed, the group stands; aborted, nothing was applied (the connection lost);
   * still unknown, the group is never acknowledged and never called nothing applied (`NotDurableError`).
   */
  private async commit(xid: string): Promise<void> {
    try {
      await this.session.sql('COMMIT');
    } catch (error) {
      if (!connectionLost(error)) throw error;
      const fate = await this.fateOf(xid);
      if (fate === 'committed') return;
      throw fate === 'aborted' ? error : new NotDurableError(error);
    }
  }

  /** 'committed' or 'aborted' once the server has decided (a backend ending rolls back what it had open); undefined while unknown. */
  private async fateOf(xid: string): Promise<'committed' | 'aborted' | undefined> {
    if (this.fateOn === undefined) return undefined;
    for (let attempt = 0; attempt < FATE_ATTEMPTS; attempt++) {
      const [row] = await this.fateOn.sql<{ status: string | null }>('SELECT pg_xact_status(CAST($1 AS xid8)) AS status', [xid]).catch(() => []);
      if (row?.status === 'committed' || row?.status === 'aborted') return row.status;
      await new Promise((resolve) => setTimeout(resolve, FATE_INTERVAL_MS));
    }
    return undefined;
  }

  /**
   * Servers of two releases on one database (a rolling deploy) must not write read rows of two shapes: a writer
   * keeping read models writes only to a database whose read models are the same versions. The first such writer
   * records its versions; one of other versions fails every group, nothing applied, and says why.
   */
  private async checkReadModels(recorded: string | null): Promise<void> {
    if (this.readModels === undefined || recorded === this.readModels) return;
    if (recorded !== null) throw new ReadModelsDifferError(this.readModels, recorded);
    await this.session.sql('UPDATE chain_head SET projectors = $1 WHERE id = 1', [this.readModels]);
  }

  /** Runs `unit` inside the group; busy or a storage fault gives the group up as a whole (thrown). */
  private async settle(unit: () => unknown): Promise<Outcome> {
    let outcome: Outcome;
    try {
      const value = await this.units.run(true, unit);
      // What the unit sent without waiting must have gone through before it counts as done.
      await this.session.settled();
      outcome = { ok: true, value };
    } catch (error) {
      outcome = { ok: false, error };
    }
    if (!outcome.ok && storageErrorOf(outcome.error)) throw outcome.error;
    return outcome;
  }

  /** A unit among others, in a savepoint of its own: undone alone when it fails. */
  private async unit(unit: () => unknown): Promise<Outcome> {
    const { session } = this;
    const head = this.head;
    await session.run('SAVEPOINT unit');
    const outcome = await this.settle(unit);
    if (!outcome.ok) {
      this.head = head;
      await session.reset();
      await session.sql('ROLLBACK TO unit');
    }
    await session.run('RELEASE unit');
    return outcome;
  }
}
