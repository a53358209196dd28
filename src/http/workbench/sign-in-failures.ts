import type { Clock } from '../../lib/clock.ts';

/**
 * Failed sign-ins counted per client address over the last minute: past `LIMIT` of them the address is refused
 * (429) until its oldest failure is a minute old. Counted per address only: a key is 40 random characters and
 * its id is no part of it, so there is no key a guesser could aim many addresses at. Kept in the server's
 * memory (a restart forgets them), for at most `MAX_ADDRESSES` addresses, the least recently failed dropped first.
 */
const WINDOW_MS = 60 * 1000;
/** Failures an address may have within the window. */
const LIMIT = 10;
const MAX_ADDRESSES = 10_000;

export class SignInFailures {
  /** Each address's failures within the window, oldest first. */
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly clock: Clock) {}

  /** Seconds this address must wait before trying again; undefined when it may try now. */
  retryAfterS(address: string): number | undefined {
    const recent = this.recent(address);
    return recent.length < LIMIT ? undefined : Math.max(1, Math.ceil((recent[0] + WINDOW_MS - this.clock()) / 1000));
  }

  /** Counts a failure of this address. */
  record(address: string): void {
    const recent = [...this.recent(address), this.clock()].slice(-LIMIT);
    this.failures.delete(address);
    this.failures.set(address, recent);
    if (this.failures.size > MAX_ADDRESSES) this.failures.delete(this.failures.keys().next().value!);
  }

  private recent(address: string): number[] {
    const since = this.clock() - WINDOW_MS;
    return (this.failures.get(address) ?? []).filter((at) => at > since);
  }
}
