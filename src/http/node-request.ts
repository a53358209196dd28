import type { IncomingMessage, ServerResponse } from 'node:http';
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
export function nodeRequest(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

/** Node's response when @hono/node-server serves the app: headers set on it cost no fetch `Headers`. */
export function nodeResponse(c: Context): ServerResponse | undefined {
  return (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
}

/**
 * A signal aborted when the client goes before its answer has been sent: from Node's response closing when Node
 * serves. hono's `c.req.raw.signal` has the adapter build a whole fetch `Request` for it: over half of the
 * long-poll handler's own time (profiled).
 */
export function closedSignal(c: Context): AbortSignal {
  const outgoing = nodeResponse(c);
  if (outgoing === undefined) return c.req.raw.signal;
  const closed = new AbortController();
  // Not once its answer has been sent: an abort builds an error with its stack, and nobody waits any more.
  outgoing.once('close', () => outgoing.writableEnded || closed.abort());
  return closed.signal;
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

/** Whether the request says it carries a body: a Content-Length above 0, or any Transfer-Encoding (chunked). */
export function sendsBody(c: Context): boolean {
  if (nodeRequest(c) === undefined) return c.req.raw.body !== null;
  const length = requestHeader(c, 'content-length');
  return (length !== undefined && length !== '0') || requestHeader(c, 'transfer-encoding') !== undefined;
}

/** The path and query string as the request line gave them: from Node's request when there is one, else from the request's URL. */
export function targetOf(incoming: IncomingMessage | undefined, url: string): string {
  if (incoming?.url !== undefined) return incoming.url;
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

/** Each query parameter's first value, decoded. */
export function requestQuery(c: Context): Record<string, string> {
  const incoming = nodeRequest(c);
  if (incoming === undefined) return c.req.query();
  // The parser skips a scheme and host; only the path and query of Node's request line matter.
  return getQueryParam(`http://host${incoming.url ?? '/'}`) as Record<string, string>;
}

/** The connection closed before the request's body ended: the client went away or was cut off by a timeout. */
export class ClientClosedError extends Error {
  constructor() {
    super('the connection closed before the body ended');
  }
}
