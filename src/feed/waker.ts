import type { LogChangeSource, LogSignals } from '../storage/log-changes.ts';

export interface WakerOptions {
  /** How often the log's end is read while commits elsewhere cannot be heard and someone waits. */
  pollMs: number;
  /** Told when commits elsewhere stop being heard, and when they are heard again. */
  onState?: (line: string) => void;
}

interface Waiter {
  after: number;
  wake(moved: boolean): void;
}

/**
 * The one waker of a server: every long-poll and stream waits here for the log to move past its position, and
 * one read of the log's end serves them all, however many they are. The log's end only grows and every seq up to
 * it is committed, so a waiter woken reads its page, and one woken by a signal that came to nothing waits again.
 *
 * Without word from the engine (PGlite; or PostgreSQL while its listening connection is lost) the end is read
 * every `pollMs` while anyone waits: a follower is late then, never missing a change, its position being a seq
 * of the dense log.
 */
export class LogWaker implements LogSignals {
  /** The highest seq known to be committed. */
  private head = 0;
  /** Bumped by every signal: a waiter that took the mark before a signal came has its end read again. */
  private generation = 0;
  private readonly waiters = new Set<Waiter>();
  private checking = false;
  private checkAgain = false;
  private polling: boolean;
  private poll: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly readLastSeq: () => Promise<number>,
    private readonly options: WakerOptions,
    private readonly source?: LogChangeSource,
  ) {
    this.polling = source === undefined;
    source?.start(this);
  }

  /** Whether the waker has stopped: nobody is woken any more. */
  get closed(): boolean {
    return this.stopped;
  }

  get waiting(): boolean {
    return this.waiters.size > 0;
  }

  /** Taken before a page is read; handed to `wait` after it, so a signal in between is not lost. */
  get mark(): number {
    return this.generation;
  }

  /**
   * Resolves true once the log is known to have moved past `after`, false after `ms` (when given) or when
   * `signal` aborts (or the waker stops).
   */
  wait(after: number, mark: number, ms?: number, signal?: AbortSignal): Promise<boolean> {
    if (this.head > after) return Promise.resolve(true);
    if (this.stopped || signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (moved: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        this.waiters.delete(waiter);
        if (this.waiters.size === 0) this.stopPolling();
        resolve(moved);
      };
      const aborted = () => done(false);
      const waiter: Waiter = { after, wake: done };
      // A stream waits without a timer of its own: idle, it costs nothing (its heartbeat is the streams' one timer).
      const timer = ms === undefined ? undefined : setTimeout(() => done(false), ms);
      signal?.addEventListener('abort', aborted, { once: true });
      this.waiters.add(waiter);
      this.startPolling();
      if (mark !== this.generation) this.check();
    });
  }

  moved(seq?: number): void {
    this.generation++;
    if (seq !== undefined && seq > this.head) {
      this.head = seq;
      this.wake();
    } else if (this.waiting) this.check();
  }

  lost(why: string): void {
    if (!this.polling) this.options.onState?.(`change feed: ${why}; followers are woken by polling every ${this.options.pollMs} ms until it is back`);
    this.polling = true;
    this.startPolling();
  }

  listening(): void {
    if (this.polling && this.source !== undefined) this.options.onState?.('change feed: commits of other processes are heard again');
    this.polling = this.source === undefined;
    if (!this.polling) this.stopPolling();
    // Whatever was committed while nothing was heard.
    this.moved();
  }

  /** Every waiter answers at once (false), and no one waits any more: the server is closing. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopPolling();
    for (const waiter of [...this.waiters]) waiter.wake(false);
    await this.source?.stop();
  }

  /** Reads the log's end, once for however many signals came meanwhile, and wakes who it moved past. */
  private check(): void {
    if (this.checking) {
      this.checkAgain = true;
      return;
    }
    this.checking = true;
    void (async () => {
      do {
        this.checkAgain = false;
        try {
          this.head = Math.max(this.head, await this.readLastSeq());
        } catch {
          // The database out of reach: the waiters answer at their time, and the next signal reads again.
        }
        this.wake();
      } while (this.checkAgain && !this.stopped);
      this.checking = false;
    })();
  }

  private wake(): void {
    for (const waiter of this.waiters) if (waiter.after < this.head) waiter.wake(true);
  }

  private startPolling(): void {
    if (!this.polling || this.poll !== undefined || !this.waiting || this.stopped) return;
    this.poll = setInterval(() => this.moved(), this.options.pollMs);
    this.poll.unref();
  }

  private stopPolling(): void {
    clearInterval(this.poll);
    this.poll = undefined;
  }
}
