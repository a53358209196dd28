import { BUSY_BUDGET_MS, StorageBusyError } from '../errors.ts';

/**
 * Waiting for another process's write lock without blocking the event loop. better-sqlite3 is synchronous:
 * with a long busy_timeout, a request that waits for `tradebook import` to commit would freeze every other
 * request of the server, reads included. The server's connection gives up on a lock at once instead, and
 * its writes retry here, asynchronously, until the lock is theirs or the budget is spent.
 */

export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The longest pause between two tries: another process leaving the lock free for longer is sure to be noticed. */
export const MAX_BUSY_PAUSE_MS = 20;

/** Runs `attempt` (a whole transaction) again after short, growing pauses while the database is locked. */
export async function retryWhileBusy<T>(attempt: () => Promise<T> | T, budgetMs = BUSY_BUDGET_MS): Promise<T> {
  const deadline = Date.now() + budgetMs;
  for (let pause = 2; ; pause = Math.min(pause * 2, MAX_BUSY_PAUSE_MS)) {
    try {
      return await attempt();
    } catch (error) {
      if (!isBusy(error)) throw error;
      if (Date.now() + pause > deadline) throw new StorageBusyError(`the database stayed locked for ${budgetMs} ms`);
    }
    await sleep(pause);
  }
}
