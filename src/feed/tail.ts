import type { ChangeRow } from './change.ts';

/** Rows the tail holds at most: a follower further behind the head than this reads its pages from the database. */
export const TAIL_ROWS = 2048;

/**
 * The log's latest rows, in memory, for the followers at its head: those a commit wakes all ask for the rows it
 * appended, at about the same moment but each from its own position. Each row is read from the database once
 * however many followers take it, and, being the same object for all, rendered once a scope (`changeJson`).
 * The log only grows and its rows never change, so a row once read stays true; the tail is a dense run of seqs
 * `(start, end]` that keeps at most TAIL_ROWS of the latest, and is begun afresh where a follower asks when it
 * is far behind that follower.
 */
export class LogTail {
  /** rows[i].seq is start + 1 + i. */
  private rows: ChangeRow[] = [];
  /** The seq before the first row; undefined before the first follower asks. */
  private start: number | undefined;
  private filling: Promise<void> | undefined;

  constructor(private readonly readRange: (after: number, end: number) => Promise<ChangeRow[]>) {}

  private get end(): number {
    return this.start! + this.rows.length;
  }

  /**
   * The rows in `(after, end]`, `head` a committed seq and `end` at most `head`: undefined when `after` is further
   * back than the tail reaches (the caller reads the database). The tail is filled up to `head` first, in one
   * read for every follower waiting on it.
   */
  async rowsAfter(after: number, end: number, head: number): Promise<ChangeRow[] | undefined> {
    if (this.start === undefined || after > this.end + TAIL_ROWS) this.begin(after);
    while (after >= this.start! && head - after <= TAIL_ROWS) {
      if (this.end >= head) return this.rows.slice(after - this.start!, end - this.start!);
      await (this.filling ??= this.fill(head).finally(() => (this.filling = undefined)));
    }
    return undefined;
  }

  private begin(at: number): void {
    this.start = at;
    this.rows = [];
  }

  /** Reads what the database has past the tail, up to `head`, and drops the oldest rows past the bound. */
  private async fill(head: number): Promise<void> {
    const from = this.end;
    const to = Math.min(head, from + TAIL_ROWS);
    const rows = await this.readRange(from, to);
    // Begun afresh meanwhile (a follower far ahead): these rows no longer join on.
    if (from !== this.end) return;
    // The log is dense; should a seq be missing all the same, the tail begins past these rows and followers
    // behind its start read the database, as they would without it.
    if (rows.length !== to - from || (rows.length > 0 && rows[0].seq !== from + 1)) return this.begin(to);
    this.rows.push(...rows);
    const over = this.rows.length - TAIL_ROWS;
    if (over > 0) {
      this.rows = this.rows.slice(over);
      this.start! += over;
    }
  }
}
