import { log } from '../lib/log.ts';
import { bounded } from './unexpected-error.ts';

/**
 * Requests whose connection closed before their body ended. Each is counted, but at most one line is logged
 * every `windowMs` (the first at once, the rest summed when the window ends), so a client aborting in a loop
 * cannot flood the log.
 */
export class AbortedRequests {
  private total = 0;
  private unlogged = 0;
  private lastLogged = -Infinity;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly windowMs = 10_000) {}

  record(method: string, path: string): void {
    this.total += 1;
    const now = Date.now();
    if (now - this.lastLogged >= this.windowMs) {
      this.lastLogged = now;
      log(`request aborted mid-body: ${method} ${bounded(path)}, the connection closed before the body ended (${this.total} since start)`);
      return;
    }
    this.unlogged += 1;
    this.timer ??= setTimeout(() => this.summarise(), this.lastLogged + this.windowMs - now).unref();
  }

  private summarise(): void {
    this.timer = undefined;
    this.lastLogged = Date.now();
    log(`${this.unlogged} more requests aborted mid-body in the last ${this.windowMs / 1000} s (${this.total} since start)`);
    this.unlogged = 0;
  }
}
