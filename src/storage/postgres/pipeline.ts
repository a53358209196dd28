import type { Sql } from './connection.ts';

/**
 * The writer's connection with its answerless statements pipelined. Every statement is a network round trip,
 * and the chain head's lock is held through all of a group's: a statement whose answer nobody reads (an insert,
 * an update, a savepoint) is sent at once and not waited for, so it travels with the next one that is. The
 * connection answers in order, so a statement awaited after it sees what it did. Its failure is kept and thrown
 * by the next statement awaited here, or by `settled()`, so a unit still fails with the first thing that went
 * wrong (the statements after it fail only because the transaction was aborted).
 */
export class PipelinedSql implements Sql {
  /** The first failure of a statement sent and not waited for, until `reset()`. */
  private failure: { error: unknown } | undefined;
  /** Settles once every statement sent so far has been answered; never rejects. */
  private sent: Promise<void> = Promise.resolve();

  constructor(private readonly connection: Sql) {}

  sql<Row extends object>(text: string, params?: readonly unknown[]): Promise<Row[]> {
    return this.awaited(this.connection.sql<Row>(text, params));
  }

  values<Row extends unknown[]>(text: string, params?: readonly unknown[]): Promise<Row[]> {
    return this.awaited(this.connection.values<Row>(text, params));
  }

  buffers(text: string, params?: readonly unknown[]): Promise<(Buffer | null)[][]> {
    return this.awaited(this.connection.buffers(text, params));
  }

  /** Sends the statement without waiting for its answer; a failure is thrown by the next statement awaited. */
  run(text: string, params?: readonly unknown[]): Promise<void> {
    const answered = this.connection.run(text, params).catch((error: unknown) => {
      this.failure ??= { error };
    });
    this.sent = this.sent.then(() => answered);
    return Promise.resolve();
  }

  /** Waits for every statement sent; throws the first failure among them. */
  async settled(): Promise<void> {
    await this.sent;
    this.throwFailure();
  }

  /**
   * Before a rollback (to a savepoint, or of the transaction): waits for every statement sent, then forgets what
   * failed, which the rollback undoes. A failure arriving after the rollback would be blamed on what follows it.
   */
  async reset(): Promise<void> {
    await this.sent;
    this.failure = undefined;
  }

  private async awaited<T>(answer: Promise<T>): Promise<T> {
    const before = this.sent;
    const outcome = await answer.then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    // A statement sent before this one that failed is the cause of whatever this one met.
    await before;
    this.throwFailure();
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  private throwFailure(): void {
    if (this.failure) throw this.failure.error;
  }
}
