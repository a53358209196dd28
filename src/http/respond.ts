import { gzip } from 'node:zlib';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { nodeResponse, requestHeader, sendsBody } from './node-request.ts';
import type { DomainError } from '../lib/result.ts';
import type { JoinedPage } from '../storage/sql.ts';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Bodies smaller than this go out as they are: compressing them saves less than it costs. */
const COMPRESS_FROM_BYTES = 1024;

/** Whether the request's `Accept-Encoding` takes gzip (by name or `*`, with a q-value above 0). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (acceptEncoding === undefined) return false;
  return acceptEncoding.split(',').some((part) => {
    const [coding, ...parameters] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== '*') return false;
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

const gzipFast = (body: string | Buffer) =>
  new Promise<Buffer<ArrayBuffer>>((resolve, reject) => gzip(body, { level: 1 }, (error, zipped) => (error ? reject(error) : resolve(zipped as Buffer<ArrayBuffer>))));

/** A JSON body many answers send alike (followers woken by one commit): compressed once, for all of them. */
export class SharedJson {
  private zipped: Promise<Buffer<ArrayBuffer>> | undefined;

  constructor(readonly json: string | Buffer<ArrayBuffer>) {}

  gzipped(): Promise<Buffer<ArrayBuffer>> {
    return (this.zipped ??= gzipFast(this.json));
  }
}

/**
 * Sends a JSON body, gzipped when the client asks for it and the body is large enough. gzip at its fastest
 * level, on libuv's thread pool: a page of 100 products shrinks about sixfold for a fraction of a millisecond,
 * and the event loop goes on serving meanwhile.
 */
function send(c: Context, body: string | Buffer<ArrayBuffer> | SharedJson, status: ContentfulStatusCode, headers: Record<string, string>): Response | Promise<Response> {
  // On Node's own response, Vary goes there: hono hands Node a lone Content-Type as a plain object, where two
  // headers or more cost it a fetch `Headers` built, sorted and copied out again (docs/performance.md).
  const outgoing = nodeResponse(c);
  outgoing?.setHeader('Vary', 'Accept-Encoding');
  const plain = outgoing === undefined ? { 'Content-Type': JSON_TYPE, Vary: 'Accept-Encoding', ...headers } : { 'Content-Type': JSON_TYPE, ...headers };
  const text = body instanceof SharedJson ? body.json : body;
  if (Buffer.byteLength(text) < COMPRESS_FROM_BYTES || !acceptsGzip(requestHeader(c, 'accept-encoding'))) return c.body(text, status, plain);
  return (body instanceof SharedJson ? body.gzipped() : gzipFast(body)).then((zipped) => {
    if (outgoing === undefined) return c.body(zipped, status, { ...plain, 'Content-Encoding': 'gzip' });
    // On Node's response beside Vary, for the same reason; set once the body is compressed, so an error answer
    // sent instead never carries it.
    outgoing.setHeader('Content-Encoding', 'gzip');
    return c.body(zipped, status, plain);
  });
}

/** Sends a body that is already JSON (read models keep records serialised), as text or UTF-8, or one that answers share. */
export function sendJson(c: Context, json: string | Buffer<ArrayBuffer> | SharedJson, status: ContentfulStatusCode = 200, headers: Record<string, string> = {}): Response | Promise<Response> {
  return send(c, json, status, headers);
}

/** The body of every error response: `{"errors":[{code, message, index?, field?}]}`. */
export function errorsJson(errors: DomainError[]): string {
  return JSON.stringify({ errors: errors.map(({ code, message, index, field }) => ({ code, message, index, field })) });
}

/** A 401 names the scheme a client authenticates with (RFC 9110): the API key as a bearer token. */
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="tradebook"' };

export function sendErrors(c: Context, status: ContentfulStatusCode, errors: DomainError[], headers: Record<string, string> = {}): Response | Promise<Response> {
  return sendJson(c, errorsJson(errors), status, status === 401 ? { ...CHALLENGE, ...headers } : headers);
}

export function sendError(c: Context, status: ContentfulStatusCode, code: string, message: string, headers?: Record<string, string>): Response | Promise<Response> {
  return sendErrors(c, status, [{ code, message }], headers);
}

export function sendBodyTooLarge(c: Context, limit: number): Response | Promise<Response> {
  // The rest of the body is never read: the connection closes after this answer.
  return sendError(c, 413, 'ERROR_BODY_TOO_LARGE', `the body is larger than ${limit} bytes`, { Connection: 'close' });
}

const PAGE_END = Buffer.from(']}');

/** The paged list envelope around a page the database already joined: the records' bytes go out as they were stored. */
export function sendPage(c: Context, limit: number, offset: number, page: JoinedPage): Response | Promise<Response> {
  const head = Buffer.from(`{"meta":{"allCount":${page.allCount},"count":${page.count},"limit":${limit},"offset":${offset}},"data":[`);
  const length = head.length + page.json.length + PAGE_END.length;
  const outgoing = nodeResponse(c);
  // Unjoined, on Node's response: the envelope and the database's bytes go out in one writev (Node corks the socket
  // for the turn). Joining them copied the whole page once more on every request (bench/README.md).
  // A body to compress, or a request body left unread (its answer closes the connection), takes the joined path.
  if (outgoing !== undefined && !sendsBody(c) && (length < COMPRESS_FROM_BYTES || !acceptsGzip(requestHeader(c, 'accept-encoding')))) {
    outgoing.setHeader('Vary', 'Accept-Encoding');
    outgoing.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': length });
    outgoing.write(head);
    outgoing.write(page.json);
    outgoing.end(PAGE_END);
    return RESPONSE_ALREADY_SENT;
  }
  return send(c, Buffer.concat([head, page.json, PAGE_END], length), 200, {});
}
