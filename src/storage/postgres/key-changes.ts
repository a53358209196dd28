import postgres from 'postgres';
import type { KeyChangeListener, KeyChangeSource } from '../key-changes.ts';
import { socketUrl } from './socket-url.ts';

/** The channel a key's change is announced on, its id as the payload, in the transaction that makes it. */
export const KEY_CHANGES_CHANNEL = 'tradebook_keys';

/**
 * Key changes as PostgreSQL announces them: this server LISTENs on a connection of its own, and each notification
 * makes its cache forget that key. When the connection closes (a restart, a failover, an administrator ending it)
 * the cache is told it may miss changes, and the server LISTENs again, on a new connection, every `retryMs` until it
 * can.
 */
export class PostgresKeyChanges implements KeyChangeSource {
  private client: postgres.Sql | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly retryMs: number,
  ) {}

  start(cache: KeyChangeListener): void {
    const options = {
      max: 1,
      // Never closed on purpose: each close is a second of untrusted keys.
      max_lifetime: null,
      fetch_types: false,
      onnotice: () => {},
      connection: { application_name: 'tradebook key changes' },
      // postgres.js hands every notification of the connection here (its own `listen` does the same, untyped).
      onnotify: (channel: string, payload: string) => {
        if (channel === KEY_CHANGES_CHANNEL) cache.forget(Number(payload));
      },
      onclose: () => this.closed(cache, 'the connection listening for key changes closed'),
    };
    const { url, path } = socketUrl(this.url);
    this.client = postgres(url, { ...options, path } as postgres.Options<Record<string, never>>);
    void this.listen(cache);
  }

  private async listen(cache: KeyChangeListener): Promise<void> {
    this.retry = undefined;
    try {
      await this.client!.unsafe(`LISTEN ${KEY_CHANGES_CHANNEL}`);
      cache.listening();
    } catch (error) {
      this.closed(cache, `cannot listen for key changes (${(error as Error).message})`);
    }
  }

  /** Both the close and the statement that failed with it call here: one attempt at a time is scheduled. */
  private closed(cache: KeyChangeListener, why: string): void {
    if (this.stopped) return;
    cache.lost(why);
    this.retry ??= setTimeout(() => void this.listen(cache), this.retryMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.client?.end({ timeout: 0 });
  }
}
