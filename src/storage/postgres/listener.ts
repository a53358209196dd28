import postgres from 'postgres';
import { socketUrl } from './socket-url.ts';

/** What one channel's listener is told: each notification, and whether notifications are heard. */
export interface ChannelHandler {
  /** What the channel's notifications tell of, for the lines that say they are not heard ("key changes"). */
  what: string;
  notified(payload: string): void;
  /** Heard from now on (first, or again after `lost`). */
  listening(): void;
  /** Notifications may be missed until `listening`. */
  lost(why: string): void;
}

/**
 * The one connection a server LISTENs on, for every channel it follows (key changes, the log's commits). When it
 * closes (a restart, a failover, an administrator ending it) every channel is told it may miss notifications, and
 * the server LISTENs again, on a new connection, every `retryMs` until it can. The connection ends when the last
 * channel is left.
 */
export class PostgresListener {
  private client: postgres.Sql | undefined;
  private retry: NodeJS.Timeout | undefined;
  private readonly channels = new Map<string, ChannelHandler>();
  /** Whether the channels are being listened on, as far as is known. */
  private connected = false;

  constructor(
    private readonly url: string,
    private readonly retryMs: number,
  ) {}

  /** Starts following `channel` (connecting at the first). */
  add(channel: string, handler: ChannelHandler): void {
    this.channels.set(channel, handler);
    if (this.client === undefined) this.connect();
    else if (this.connected) void this.listenTo([[channel, handler]]);
  }

  /** Stops following `channel`; the connection ends with the last. */
  async remove(channel: string): Promise<void> {
    this.channels.delete(channel);
    if (this.channels.size > 0) return this.client?.unsafe(`UNLISTEN ${channel}`).then(() => {}, () => {});
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    this.connected = false;
    await client?.end({ timeout: 0 });
  }

  private connect(): void {
    const options = {
      max: 1,
      // Never closed on purpose: each close is a time of notifications missed.
      max_lifetime: null,
      fetch_types: false,
      onnotice: () => {},
      connection: { application_name: 'tradebook notifications' },
      // postgres.js hands every notification of the connection here (its own `listen` does the same, untyped).
      onnotify: (channel: string, payload: string) => this.channels.get(channel)?.notified(payload),
      onclose: () => this.closed((what) => `the connection listening for ${what} closed`),
    };
    const { url, path } = socketUrl(this.url);
    this.client = postgres(url, { ...options, path } as postgres.Options<Record<string, never>>);
    void this.listenTo([...this.channels]);
  }

  private async listenTo(channels: [string, ChannelHandler][]): Promise<void> {
    this.retry = undefined;
    const client = this.client;
    if (client === undefined) return;
    try {
      for (const [channel] of channels) await client.unsafe(`LISTEN ${channel}`);
      this.connected = true;
      for (const [, handler] of channels) handler.listening();
    } catch (error) {
      this.closed((what) => `cannot listen for ${what} (${(error as Error).message})`);
    }
  }

  /** Both the close and the statement that failed with it call here: one attempt at a time is scheduled. */
  private closed(why: (what: string) => string): void {
    if (this.client === undefined) return;
    this.connected = false;
    for (const handler of this.channels.values()) handler.lost(why(handler.what));
    this.retry ??= setTimeout(() => void this.listenTo([...this.channels]), this.retryMs);
  }
}
