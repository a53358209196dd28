import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import type { Company } from '../company.ts';
import type { AppEnv } from '../http/env.ts';
import { nodeResponse } from '../http/node-request.ts';
import type { KeyScope } from '../storage/port.ts';
import { changeJson } from './change.ts';
import { changesAfter } from './pages.ts';

/** What bounds the streams of one server (the README's settings table). */
export interface StreamSettings {
  /** An idle stream gets a comment this often, so proxies keep it open (ms). */
  heartbeatMs: number;
  /** Streams open at once for one key, and in all. */
  perKey: number;
  total: number;
  /** A client whose unread answer grows past this many bytes, or that takes `stallMs` to take one more page, is cut off. */
  bufferBytes: number;
  stallMs: number;
  /** What a stream ended by the server's shutdown tells its client to wait before reconnecting (ms). */
  retryMs: number;
}

export const STREAM_DEFAULTS: StreamSettings = { heartbeatMs: 15_000, perKey: 10, total: 1000, bufferBytes: 1 << 20, stallMs: 10_000, retryMs: 2000 };

/** An open stream, as the heartbeat and the shutdown see it. */
interface OpenStream {
  /** When it was last written to (performance.now()). */
  wroteAt: number;
  /** Comments on it, so proxies keep it open. */
  beat(): void;
  end(): void;
}

/** Changes a stream reads and sends at a time: one page, one write. */
const STREAM_PAGE = 100;

class SlowReader extends Error {}

/**
 * The server's server-sent event streams of changes: each follows the log from its client's position (the
 * `Last-Event-ID` it reconnects with), woken by the server's one waker, bounded per key and in all, and ended,
 * each with a `retry:` hint, when the server shuts down.
 */
export class ChangeStreams {
  private readonly open = new Set<OpenStream>();
  private readonly byKey = new Map<number, number>();
  private ending = false;
  /** The one timer of every stream, while any is open: it comments on those that were silent. */
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(readonly settings: StreamSettings = STREAM_DEFAULTS) {}

  get count(): number {
    return this.open.size;
  }

  /** Why a new stream for `keyId` is refused (too many open), or undefined. */
  refusal(keyId: number): string | undefined {
    if (this.ending) return 'the server is shutting down';
    if ((this.byKey.get(keyId) ?? 0) >= this.settings.perKey) return `this key has ${this.settings.perKey} streams open already`;
    if (this.open.size >= this.settings.total) return `the server has ${this.settings.total} streams open already`;
    return undefined;
  }

  /** The answer of a stream for the caller's key, after `after`, of `types` (all when undefined). */
  serve(c: Context<AppEnv>, tb: Company, after: number, types: ReadonlySet<string> | undefined): Response {
    const { id: keyId, scope } = c.get('key');
    this.byKey.set(keyId, (this.byKey.get(keyId) ?? 0) + 1);
    const stopped = new AbortController();
    let slow = false;
    let send: ((text: string) => Promise<void>) | undefined;
    const member: OpenStream = {
      wroteAt: performance.now(),
      end: () => stopped.abort(),
      beat: () =>
        void send?.(': still here\n\n').catch(() => {
          slow = true;
          stopped.abort();
        }),
    };
    this.opened(member);
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      send = async (text: string) => {
        member.wroteAt = performance.now();
        await this.write(c, stream, text);
      };
      stream.onAbort(() => stopped.abort());
      try {
        await this.follow(stream, send, tb, { after, types, scope }, stopped.signal);
        if (slow) throw new SlowReader();
      } catch (error) {
        if (!(error instanceof SlowReader)) throw error;
        // Its position is its last id: it resumes from there, and meanwhile holds none of the server's memory.
        nodeResponse(c)?.destroy();
        stream.abort();
      } finally {
        this.closed(member, keyId);
      }
    });
  }

  private opened(member: OpenStream): void {
    this.open.add(member);
    const every = this.settings.heartbeatMs / 2;
    // Each stream silent for half the period is commented on: none is silent for a whole one.
    this.heartbeat ??= setInterval(() => {
      const silentSince = performance.now() - every;
      for (const open of this.open) if (open.wroteAt <= silentSince) open.beat();
    }, every).unref();
  }

  private closed(member: OpenStream, keyId: number): void {
    if (!this.open.delete(member)) return;
    const left = this.byKey.get(keyId)! - 1;
    if (left === 0) this.byKey.delete(keyId);
    else this.byKey.set(keyId, left);
    if (this.open.size === 0) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
    }
  }

  /** Ends every stream with a `retry:` hint (the server is shutting down); new ones are refused. */
  endAll(): void {
    this.ending = true;
    for (const member of this.open) member.end();
  }

  private async follow(stream: SSEStreamingApi, send: (text: string) => Promise<void>, tb: Company, from: { after: number; types?: ReadonlySet<string>; scope: KeyScope }, stopped: AbortSignal): Promise<void> {
    const { retryMs } = this.settings;
    // Sent at once: the client knows it is connected, and a proxy passes the headers on.
    await send(`retry: ${retryMs}\n\n`);
    let position = from.after;
    while (!stopped.aborted && !tb.waker.closed) {
      const mark = tb.waker.mark;
      const page = await changesAfter(tb.engine.readOn, position, STREAM_PAGE, from.types);
      if (page.rows.length > 0) {
        await send(page.rows.map((row) => event(changeJson(row, from.scope), row.type, row.seq)).join(''));
      }
      if (page.next > position) {
        position = page.next;
        continue;
      }
      await tb.waker.wait(position, mark, undefined, stopped);
    }
    if (this.ending && !stream.aborted) await send(`retry: ${retryMs}\n: the server is shutting down; reconnect with Last-Event-ID\n\n`);
  }

  /**
   * Hands `text` to the client's connection, or cuts off a client that does not keep up: its unread answer past
   * the bound, or the connection not taking the text within `stallMs` (the server's side waits for it to drain).
   */
  private async write(c: Context<AppEnv>, stream: SSEStreamingApi, text: string): Promise<void> {
    const { bufferBytes, stallMs } = this.settings;
    const out = nodeResponse(c);
    if (out !== undefined && out.writableLength + (out.socket?.writableLength ?? 0) > bufferBytes) throw new SlowReader();
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new SlowReader()), stallMs)));
    try {
      await Promise.race([stream.write(text), stalled]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** One server-sent event: the change's seq as its id (a reconnecting client's position), its type as the event. */
const event = (data: string, type: string, seq: number) => `id: ${seq}\nevent: ${type}\ndata: ${data}\n\n`;
