import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { getQueryParam } from 'hono/utils/url';

/**
 * Headers, query string and body, read from Node's own request when @hono/node-server serves the app. Asking
 * hono's request instead makes the adapter build a fetch `Headers` object and the full URL on every request
 * (docs/performance.md), and a whole fetch `Request` with a web stream for the body; Node
 * has the headers and URL parsed already and streams the body itself. The query is parsed by hono's own
 * parser either way, so the values are the same. Called through `app.request` (tests), there is no Node
 * request and hono's is read.
 */
function nodeRequest(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

/**
 * Makes hono's own lookups of one header read Node's headers too (the stack's validator reads Content-Type on every
 * request it validates, whatever it validates), so the adapter does not build a fetch `Headers` for it.
 */
export function headerLookupsFromNode(c: Context): void {
  if (nodeRequest(c) === undefined) return;
  const every = c.req.header.bind(c.req);
  c.req.header = ((name?: string) => (name === undefined ? every() : requestHeader(c, name.toLowerCase()))) as typeof c.req.header;
}

/** The header's value; `name` in lower case. */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = nodeRequest(c);
  if (incoming === undefined) return c.req.header(name);
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Each query parameter's first value, decoded. */
export function requestQuery(c: Context): Record<string, string> {
  const incoming = nodeRequest(c);
  if (incoming === undefined) return c.req.query();
  // The parser skips a scheme and host; only the path and query of Node's request line matter.
  return getQueryParam(`http://host${incoming.url ?? '/'}`) as Record<string, string>;
}

export const MAX_BODY_BYTES = 1024 * 1024;

/** The connection closed before the request's body ended: the client went away or was cut off by a timeout. */
export class ClientClosedError extends Error {
  constructor() {
    super('the connection closed before the body ended');
  }
}

/** A declared Content-Length over MAX_BODY_BYTES: refused before any of the body is read. */
export function declaredTooLarge(c: Context): boolean {
  return Number(requestHeader(c, 'content-length')) > MAX_BODY_BYTES;
}

/** The whole body; undefined as soon as it is longer than MAX_BODY_BYTES (the caller answers 413). */
export function requestBody(c: Context): Promise<Uint8Array | undefined> {
  return readBody(c, true);
}

/**
 * Reads the body to its end and drops it; false once it is over MAX_BODY_BYTES (the caller answers 413). For a
 * request refused on its headers alone: nothing of the body is kept or parsed, yet the answer comes in the same
 * order as for any other request (a body over the limit is 413, a stalled one 408).
 */
export async function discardBody(c: Context): Promise<boolean> {
  return (await readBody(c, false)) !== undefined;
}

/**
 * Reads the body, keeping it or only counting it, and resolves with undefined as soon as it is longer than
 * MAX_BODY_BYTES. Node's request is then paused, not destroyed, so the 413 can still be answered on its socket.
 */
function readBody(c: Context, keep: boolean): Promise<Uint8Array | undefined> {
  if (declaredTooLarge(c)) return Promise.resolve(undefined);
  const incoming = nodeRequest(c);
  if (incoming === undefined) return fetchBody(c.req.raw.body, keep);
  if (incoming.destroyed) return Promise.reject(new ClientClosedError());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => incoming.off('data', onData).off('end', onEnd).off('error', onClose).off('close', onClose);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        done();
        incoming.pause();
        resolve(undefined);
      } else if (keep) {
        chunks.push(chunk);
      }
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks));
    };
    const onClose = () => {
      done();
      reject(new ClientClosedError());
    };
    incoming.on('data', onData).on('end', onEnd).on('error', onClose).on('close', onClose);
  });
}

async function fetchBody(stream: ReadableStream<Uint8Array> | null, keep: boolean): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (stream === null) return new Uint8Array(0);
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks);
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      return undefined;
    }
    if (keep) chunks.push(value);
  }
}
