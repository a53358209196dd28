import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './env.ts';
import { ClientClosedError, nodeRequest, requestHeader, sendsBody } from './node-request.ts';
import { sendBodyTooLarge } from './respond.ts';

/**
 * How large a body each route takes. A route reads its body through `takeBody` before its handler runs, once
 * the key or session it needs is checked (a request refused on those has its connection closed, its body
 * never read); a route that takes no body answers without reading one and closes the connection.
 */
export const BODY_LIMITS = {
  /** The API's JSON bodies: a batch of records. */
  api: 1024 * 1024,
  /** A workbench form of a few short fields: sign-in (a key and the form's token), sign-out. */
  form: 1024,
  /** Anchors pasted or uploaded on the workbench: twice the text one check takes (ANCHOR_LIMITS), so text over that is told so on a page. */
  anchors: 2 * 1024 * 1024,
} as const;

/**
 * Reads the request's body within `limit` bytes and leaves it for the handler (`c.get('body')`); a declared
 * Content-Length over the limit is refused before a byte is read, and a body without one (chunked) as soon as
 * the bytes received pass it: 413, and the connection is closed. Either way at most `limit` bytes are held.
 */
export function takeBody(limit: number) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const body = sendsBody(c) ? await readWithin(c, limit) : EMPTY;
    if (body === undefined) return sendBodyTooLarge(c, limit);
    c.set('body', body);
    await next();
  });
}

/**
 * For every request: an answer given without reading a body the request carries (a route that takes none, a
 * key or session refused) closes the connection, so the server does not go on receiving a body nobody reads.
 */
export const closeAfterUnreadBody = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (c.get('body') === undefined && sendsBody(c)) c.res.headers.set('Connection', 'close');
});

const EMPTY = new Uint8Array(0);

/**
 * The body, or undefined as soon as it is longer than `limit`. Node's request is then paused, not destroyed, so
 * the 413 can still be answered on its socket.
 */
function readWithin(c: Context, limit: number): Promise<Uint8Array | undefined> {
  if (Number(requestHeader(c, 'content-length')) > limit) return Promise.resolve(undefined);
  const incoming = nodeRequest(c);
  if (incoming === undefined) return fetchBody(c.req.raw.body, limit);
  if (incoming.destroyed) return Promise.reject(new ClientClosedError());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => incoming.off('data', onData).off('end', onEnd).off('error', onClose).off('close', onClose);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        done();
        incoming.pause();
        resolve(undefined);
      } else {
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

/** As `readWithin`, from a fetch body (a request made through `app.request`, as the tests do). */
async function fetchBody(stream: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array | undefined> {
  if (stream === null) return EMPTY;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks);
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
}

/** A form's fields (URL-encoded or multipart) from the body `takeBody` read. */
export function formFields(c: Context): Promise<FormData> {
  const type = requestHeader(c, 'content-type') ?? 'application/x-www-form-urlencoded';
  const body = (c as Context<AppEnv>).get('body') as Uint8Array<ArrayBuffer>;
  return new Response(body, { headers: { 'Content-Type': type } }).formData().catch(() => new FormData());
}
