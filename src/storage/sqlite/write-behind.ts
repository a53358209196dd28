import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { SqlSession } from '../sql.ts';
import { sqliteDialect } from './dialect.ts';
import { BUILD_PRAGMAS } from './maintenance.ts';
import type { Sqlite } from './open.ts';

/**
 * A build's statements run on a thread of their own, on a connection of their own to the same file, while the
 * thread that asked for them goes on deciding and rendering: SQLite writing the rows, committing and checkpointing
 * takes about half of a rebuild's CPU, the projectors the other half, and the two then share the machine's cores.
 * Writes are sent in order and not waited for; a read waits for its answer, so it sees every write sent before it
 * (a build reads little: see `ApplyMode`). At most IN_FLIGHT batches are sent and not yet done, so memory stays
 * bounded when the writer falls behind. A statement that fails stops the writer (its transaction rolled back), and
 * the next statement, read or `settled` asked of it fails with that error.
 */

/** Statements a message carries, and messages sent and not yet done at most (a statement carries up to ~150 KB). */
const BATCH = 8;
const IN_FLIGHT = 8;

const enum Kind {
  Exec,
  Run,
  Rows,
  Objects,
  Value,
}
type Step = [kind: Kind, text: string, params: readonly unknown[]];
interface Done {
  id: number;
  answer?: unknown;
  failure?: { message: string; code?: string };
}

// The worker's code: plain CommonJS, so it runs the same from the sources and from the bundle.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
for (const setting of workerData.pragmas) db.pragma(setting);
const writes = new Map();
const reads = new Map();
const prepared = (cache, text, raw) => {
  let statement = cache.get(text);
  if (statement === undefined) {
    statement = db.prepare(text);
    if (raw) statement.raw();
    cache.set(text, statement);
  }
  return statement;
};
let failure;
parentPort.on('message', (message) => {
  if (message === 'close') {
    if (db.inTransaction) db.exec('ROLLBACK');
    db.close();
    parentPort.close();
    return;
  }
  let answer;
  if (failure === undefined) {
    try {
      for (const [kind, text, params] of message.steps) {
        if (kind === ${Kind.Exec}) db.exec(text);
        else if (kind === ${Kind.Run}) prepared(writes, text, false).run(params);
        else if (kind === ${Kind.Rows}) answer = prepared(reads, text, true).all(params);
        else if (kind === ${Kind.Objects}) answer = prepared(writes, text, false).all(params);
        else answer = prepared(reads, text, true).get(params)?.[0];
      }
    } catch (error) {
      failure = { message: String(error && error.message), code: error && error.code };
      if (db.inTransaction) db.exec('ROLLBACK');
    }
  }
  parentPort.postMessage({ id: message.id, answer, failure });
});
`;

export class WriteBehind {
  private steps: Step[] = [];
  private sent = 0;
  private done = 0;
  private failure: Error | undefined;
  private readonly waiting = new Map<number, { resolve: (answer: unknown) => void; reject: (error: Error) => void }>();
  private readonly exited: Promise<void>;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (message: Done) => this.finished(message));
    worker.on('error', (error) => this.fail(error));
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    void this.exited.then(() => this.fail(new Error('the build writer stopped')));
  }

  /** A writer to the file of `db`, its connection set as `db`'s and for a build (`BUILD_PRAGMAS`). */
  static start(db: Sqlite): WriteBehind {
    const copied = ['busy_timeout', 'cache_size', 'foreign_keys'].map((name) => `${name} = ${db.pragma(name, { simple: true })}`);
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    return new WriteBehind(new Worker(WORKER, { eval: true, workerData: { file: db.name, driver, pragmas: [...copied, ...BUILD_PRAGMAS] } }));
  }

  readonly session: SqlSession = {
    dialect: sqliteDialect,
    rows: <Row>(text: string, params: readonly unknown[] = []) => this.read(Kind.Rows, text, params) as Promise<Row[]>,
    objects: <Row>(text: string, params: readonly unknown[] = []) => this.read(Kind.Objects, text, params) as Promise<Row[]>,
    value: <T>(text: string, params: readonly unknown[] = []) => this.read(Kind.Value, text, params) as Promise<T | undefined>,
    run: (text, params = []) => this.write(Kind.Run, text, params),
    joinedPage: () => Promise.reject(new Error('a build serves no pages')),
  };

  /** Runs `work` as one transaction, the write lock taken at its BEGIN (see `inWriteTransaction`). */
  async transaction<T>(work: () => Promise<T>): Promise<T> {
    await this.write(Kind.Exec, 'BEGIN IMMEDIATE', []);
    const result = await work();
    await this.write(Kind.Exec, 'COMMIT', []);
    return result;
  }

  /** Settles once every statement sent has run; fails with the error that stopped the writer, if one did. */
  async settled(): Promise<void> {
    this.check();
    await this.send();
  }

  /** Stops the writer, rolling back what it had not committed, and waits for its thread to end. */
  async close(): Promise<void> {
    this.worker.postMessage('close');
    await this.exited;
  }

  private async write(kind: Kind, text: string, params: readonly unknown[]): Promise<void> {
    this.check();
    this.steps.push([kind, text, params]);
    if (this.steps.length < BATCH) return;
    const done = this.send();
    // Not waited for unless too much is sent and not done; a failure is told by the next statement.
    done.catch(() => {});
    while (this.sent - this.done >= IN_FLIGHT) await this.nextDone();
    this.check();
  }

  private read(kind: Kind, text: string, params: readonly unknown[]): Promise<unknown> {
    this.check();
    this.steps.push([kind, text, params]);
    return this.send();
  }

  /** Sends the steps gathered; settles with the answer of the last once they have run. */
  private send(): Promise<unknown> {
    const id = ++this.sent;
    const steps = this.steps;
    this.steps = [];
    this.worker.postMessage({ id, steps });
    return new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }));
  }

  private nextDone(): Promise<void> {
    const id = this.done + 1;
    const waiter = this.waiting.get(id)!;
    return new Promise((resolve) => {
      this.waiting.set(id, {
        resolve: (answer) => {
          waiter.resolve(answer);
          resolve();
        },
        reject: (error) => {
          waiter.reject(error);
          resolve();
        },
      });
    });
  }

  private finished({ id, answer, failure }: Done): void {
    this.done = id;
    if (failure !== undefined && this.failure === undefined) this.failure = Object.assign(new Error(failure.message), { code: failure.code });
    const waiter = this.waiting.get(id);
    this.waiting.delete(id);
    if (this.failure === undefined) waiter?.resolve(answer);
    else waiter?.reject(this.failure);
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const [, waiter] of this.waiting) waiter.reject(this.failure);
    this.waiting.clear();
  }

  private check(): void {
    if (this.failure !== undefined) throw this.failure;
  }
}
