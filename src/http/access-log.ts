import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './env.ts';
import { clientAddress } from './client-address.ts';
import { requestHeader, requestTarget } from './node-request.ts';

/** What one request leaves in the access log: the key by its id only, never a key, a token or a session's cookie. */
export interface AccessEntry {
  reqId: string;
  method: string;
  path: string;
  status: number;
  /** From the request reaching the app to its answer being ready, in milliseconds. */
  ms: number;
  keyId?: number;
  /** The client's address (see `clientAddress`). */
  client: string;
  /** A workbench request's session, by the SHA-256 of its id as the database keeps it. */
  session?: string;
  /**
   * What an auditor read: the path and query as sent, on every workbench page and every request made with an
   * audit key. The trail of who viewed which record.
   */
  read?: string;
}

/** The entry as JSON members in the order of its fields (those with no value left out), for `logFields`. */
export function accessFields(entry: AccessEntry): string {
  const key = entry.keyId === undefined ? '' : `,"keyId":${entry.keyId}`;
  const session = entry.session === undefined ? '' : `,"session":${JSON.stringify(entry.session)}`;
  const read = entry.read === undefined ? '' : `,"read":${JSON.stringify(entry.read)}`;
  return `"reqId":${JSON.stringify(entry.reqId)},"method":${JSON.stringify(entry.method)},"path":${JSON.stringify(entry.path)},"status":${entry.status},"ms":${entry.ms}${key},"client":${JSON.stringify(entry.client)}${session}${read}`;
}

/** A client's own request id is kept (so its logs and the server's join up) when it is a plain token of sane length. */
const CLIENT_REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Puts the request id on the answer: on Node's own response when @hono/node-server serves the app (hono's would
 * build a fetch `Headers` for it, a few microseconds a request), else (`app.request`, tests) on hono's.
 */
function answerWithRequestId(c: Context, reqId: string): void {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing === undefined) c.header('X-Request-Id', reqId);
  else outgoing.setHeader('X-Request-Id', reqId);
}

/**
 * Gives every request an id (the client's `X-Request-Id`, or a new one), answers with it in `X-Request-Id`, and
 * hands one entry a request to `write` once its answer is ready. `trustProxy`: as `clientAddress`.
 */
export function accessLog(write: (entry: AccessEntry) => void, trustProxy = false) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const started = performance.now();
    const given = requestHeader(c, 'x-request-id');
    const reqId = given !== undefined && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
    answerWithRequestId(c, reqId);
    try {
      await next();
    } finally {
      const key = c.get('key');
      const session = c.get('session');
      write({
        reqId,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        keyId: key?.id,
        client: clientAddress(c, trustProxy),
        session: session?.idHash,
        read: session !== undefined || key?.scope === 'audit' ? requestTarget(c) : undefined,
      });
    }
  });
}
