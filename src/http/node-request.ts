import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { getQueryParam } from 'hono/utils/url';

/**
 * Headers, query string and body, read from Node's own request when @hono/node-server serves the app. Asking
 * hono's request instead makes the adapter build a fetch `Headers` object and the full URL on every request
 * (about a tenth of a page request's CPU), and a whole fetch `Request` with a web stream for the body; Node
 * has the headers and URL parsed already and streams the body itself. The query is parsed by hono's own
 * parser either way, so the values are the same. Called through `app.request` (tests), there is no Node
 * request and hono's is read.
 */
function nodeRequest(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
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

/**
 * The whole body, or undefined as soon as it is longer than `maxBytes` (a declared Content-Length says so
 * before anything is read; a chunked body is read no further than that). Node's request is then paused, not
 * destroyed, so the 413 can still be answered on its socket.
 */
export function requestBody(c: Context, maxBytes: number): Promise<Uint8Array | undefined> {
  if (Number(requestHeader(c, 'content-length')) > maxBytes) return Promise.resolve(undefined);
  const incoming = nodeRequest(c);
  if (incoming === undefined) return fetchBody(c.req.raw.body, maxBytes);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => incoming.off('data', onData).off('end', onEnd).off('error', reject).off('close', onClose);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        done();
        incoming.pause();
        resolve(undefined);
      } else {
        chunks.push(chunk);
      }
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks, size));
    };
    const onClose = () => {
      done();
      reject(new Error('the client closed the connection before the body ended'));
    };
    incoming.on('data', onData).on('end', onEnd).on('error', reject).on('close', onClose);
  });
}

async function fetchBody(stream: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (stream === null) return new Uint8Array(0);
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks, size);
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
}
