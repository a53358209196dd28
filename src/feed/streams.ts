import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import type { Company } from '../company.ts';
import type { AppEnv } from '../http/env.ts';
import { nodeResponse } from '../http/node-request.ts';
import { unexpectedError } from '../http/unexpected-error.ts';
import { logger } from '../lib/log.ts';
import type { KeyScope } from '../storage/port.ts';
import { changeJson } from './change.ts';
import { LatestKept } from './kept.ts';
import { changesAfter } from './pages.ts';
import { utf8Joined } from './utf8.ts';

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

/** Pages of events kept for the streams that send alike: a few, the latest. */
const KEPT_PAGES = 16;

class SlowReader extends Error {}

/** The headers of a stream's answer: those of hono's `streamSSE`, and one that keeps a proxy (nginx) from buffering it. */
const STREAM_HEADERS = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'Transfer-Encoding': 'chunked', 'X-Accel-Buffering': 'no' };

/** A stream's connection to its client, as the stream writes to it. */
interface Connection {
  /** Bytes handed to the connection and not yet taken by the client. */
  unsent(): number;
  /** Hands `text` to the connection; settles once it has room for more (or has closed). */
  write(text: string | Uint8Array): Promise<void>;
  /** Cuts it off: the client does not keep up. */
  cut(): void;
  end(): void;
  onClose(listener: () => void): void;
}

/**
 * Node's response, written to directly: through hono's `streamSSE`, each write went through a web stream's
 * writer, transform, reader and the adapter's reader before reaching the socket, for each of a hundred streams a
 * commit wakes.
 */
function nodeConnection(out: ServerResponse): Connection {
  return {
    unsent: () => out.writableLength + (out.socket?.writableLength ?? 0),
    write: (text) =>
      new Promise((resolve) => {
        if (out.write(text) || out.destroyed) return resolve();
        const settled = () => {
          out.off('drain', settled);
          out.off('close', settled);
          resolve();
        };
        out.on('drain', settled);
        out.on('close', settled);
      }),
    cut: () => out.destroy(),
    end: () => out.end(),
    onClose: (listener) => out.once('close', listener),
  };
}

/** hono's event stream, where no Node response serves the request (`app.request`). */
function webConnection(stream: SSEStreamingApi): Connection {
  return {
    unsent: () => 0,
    write: async (text) => void (await stream.write(text)),
    cut: () => stream.abort(),
    end: () => void stream.close(),
    onClose: (listener) => stream.onAbort(listener),
  };
}

/** Where a stream is in the log, and what it follows: for a key of `scope`, of `types` (every one when undefined). */
interface Follower {
  after: number;
  types: ReadonlySet<string> | undefined;
  scope: KeyScope;
  /** The streams' pages alike are kept by this name. */
  name: string;
}

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
  /** The streams one commit wakes at one position send the same page: its events are built and encoded once. */
  private readonly pages = new LatestKept<Buffer<ArrayBuffer>>(KEPT_PAGES);

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
  serve(c: Context<AppEnv>, tb: Company, after: number, types: ReadonlySet<string> | undefined): Response | Promise<Response> {
    const { id: keyId, scope } = c.get('key');
    const follower: Follower = { after, types, scope, name: `${scope} ${types === undefined ? '' : [...types].sort().join(',')}` };
    const out = nodeResponse(c);
    if (out === undefined) {
      c.header('X-Accel-Buffering', 'no');
      return streamSSE(c, (stream) => this.run(c, webConnection(stream), tb, keyId, follower));
    }
    out.writeHead(200, STREAM_HEADERS);
    void this.run(c, nodeConnection(out), tb, keyId, follower);
    return RESPONSE_ALREADY_SENT;
  }

  /** Follows the log on `connection` until the client goes, the server shuts down, or the client falls behind. */
  private async run(c: Context<AppEnv>, connection: Connection, tb: Company, keyId: number, follower: Follower): Promise<void> {
    this.byKey.set(keyId, (this.byKey.get(keyId) ?? 0) + 1);
    const stopped = new AbortController();
    let slow = false;
    const send = async (text: string | Uint8Array) => {
      member.wroteAt = performance.now();
      await this.write(connection, text);
    };
    const member: OpenStream = {
      wroteAt: performance.now(),
      end: () => stopped.abort(),
      beat: () =>
        void send(': still here\n\n').catch(() => {
          slow = true;
          stopped.abort();
        }),
    };
    this.opened(member);
    let gone = false;
    connection.onClose(() => {
      gone = true;
      stopped.abort();
    });
    try {
      await this.follow(send, tb, follower, stopped.signal, () => gone);
      if (slow) throw new SlowReader();
      connection.end();
    } catch (error) {
      // Its position is its last id: it resumes from there, and meanwhile holds none of the server's memory.
      connection.cut();
      if (!(error instanceof SlowReader)) logger.error(unexpectedError(c, error), 'a change stream failed');
    } finally {
      this.closed(member, keyId);
    }
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

  private async follow(send: (text: string | Uint8Array) => Promise<void>, tb: Company, from: Follower, stopped: AbortSignal, gone: () => boolean): Promise<void> {
    const { retryMs } = this.settings;
    // Sent at once: the client knows it is connected, and a proxy passes the headers on.
    await send(`retry: ${retryMs}\n\n`);
    let position = from.after;
    while (!stopped.aborted && !tb.waker.closed) {
      const mark = tb.waker.mark;
      const page = await changesAfter(tb.engine.readOn, position, STREAM_PAGE, from.types);
      if (page.rows.length > 0) {
        const rows = page.rows;
        await send(this.pages.of(`${from.name} ${position} ${page.next}`, () => utf8Joined(rows.map((row) => event(changeJson(row, from.scope), row.type, row.seq)))));
      }
      if (page.next > position) {
        position = page.next;
        continue;
      }
      await tb.waker.wait(position, mark, undefined, stopped);
    }
    if (this.ending && !gone()) await send(`retry: ${retryMs}\n: the server is shutting down; reconnect with Last-Event-ID\n\n`);
  }

  /**
   * Hands `text` to the client's connection, or cuts off a client that does not keep up: its unread answer past
   * the bound, or the connection not taking the text within `stallMs`.
   */
  private async write(connection: Connection, text: string | Uint8Array): Promise<void> {
    const { bufferBytes, stallMs } = this.settings;
    if (connection.unsent() > bufferBytes) throw new SlowReader();
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new SlowReader()), stallMs)));
    try {
      await Promise.race([connection.write(text), stalled]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** One server-sent event: the change's seq as its id (a reconnecting client's position), its type as the event. */
const event = (data: string, type: string, seq: number) => `id: ${seq}\nevent: ${type}\ndata: ${data}\n\n`;
