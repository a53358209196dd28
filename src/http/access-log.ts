import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, ExecutionContext } from 'hono';
import type { KeyScope } from '../tokens/api-keys.ts';
import { addressOf } from './client-address.ts';
import { targetOf } from './node-request.ts';
import type { TrustedProxies } from './trusted-proxies.ts';

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
  // The request id is a plain token (`CLIENT_REQUEST_ID` or a UUID) and the method an HTTP token: nothing to escape.
  return `"reqId":"${entry.reqId}","method":"${entry.method}","path":${JSON.stringify(entry.path)},"status":${entry.status},"ms":${entry.ms}${key},"client":${JSON.stringify(entry.client)}${session}${read}`;
}

/** What a request's line says that only the app learns: who made it. Filled by `logAs`, read when the answer is ready. */
interface Caller {
  /** The request's id, for any other line about the request (`requestIdOf`). */
  reqId?: string;
  key?: { id: number; scope: KeyScope };
  session?: string;
}

/** The environment hono's handlers see: Node's request and response when @hono/node-server serves, and the caller. */
interface ServedEnv {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
  caller?: Caller;
}

/** Tells the access log who made the request (the key, and on the workbench the session's id hash), once the app knows. */
export function logAs(c: Context, key: { id: number; scope: KeyScope }, session?: string): void {
  const caller = (c.env as ServedEnv | undefined)?.caller;
  if (caller === undefined) return;
  caller.key = key;
  caller.session = session;
}

/** The id the access log gave the request of `c`; none when no access log is kept. */
export function requestIdOf(c: Context): string | undefined {
  return (c.env as ServedEnv | undefined)?.caller?.reqId;
}

type Fetch = (request: Request, env?: unknown, executionCtx?: ExecutionContext) => Response | Promise<Response>;

/** A client's own request id is kept (so its logs and the server's join up) when it is a plain token of sane length. */
const CLIENT_REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Whether an answer goes out on Node's own response (@hono/node-server), where headers are set without a fetch `Headers`. */
const outgoingOf = (env: unknown) => (env as ServedEnv | undefined)?.outgoing;

/** A request target (origin or absolute form) under /api/: the answers that carry a company's books. */
const API_TARGET = /^(?:[a-z][a-z0-9+.-]*:\/\/[^/]*)?\/api\//i;

/**
 * The headers every answer carries, set on Node's response before the app runs, where they cost no `Headers` of
 * hono's: `X-Content-Type-Options: nosniff` on all (no answer is to be read as another type than it says: a JSON
 * error sniffed as HTML, say), and `Cache-Control: no-store` on every API answer, so no shared cache keeps a
 * company's books (the workbench's pages and files say it themselves).
 */
export function commonHeaders(fetch: Fetch): Fetch {
  return (request, env, executionCtx) => {
    const outgoing = outgoingOf(env);
    if (outgoing !== undefined) {
      outgoing.setHeader('X-Content-Type-Options', 'nosniff');
      if (API_TARGET.test((env as ServedEnv).incoming?.url ?? '')) outgoing.setHeader('Cache-Control', 'no-store');
      return fetch(request, env, executionCtx);
    }
    const api = API_TARGET.test(request.url);
    const answered = fetch(request, env, executionCtx);
    const sayHeaders = (response: Response) => {
      response.headers.set('X-Content-Type-Options', 'nosniff');
      if (api) response.headers.set('Cache-Control', 'no-store');
      return response;
    };
    return answered instanceof Promise ? answered.then(sayHeaders) : sayHeaders(answered);
  };
}

/**
 * The access log around the app's `fetch`, not inside it as a middleware (hono's middleware layer alone cost
 * about as much as the line): gives every request an id (the client's `X-Request-Id`, or a new one), answers with
 * it in `X-Request-Id`, and hands one entry a request to `write` once its answer is ready (served by Node, once it
 * has gone out, with the status Node wrote). Who made the request reaches the entry through `logAs`. `path` is the
 * app's own (`getPath`); `proxies`: as `clientAddress`.
 */
export function accessLogged(fetch: Fetch, write: (entry: AccessEntry) => void, getPath: (request: Request) => string, proxies: TrustedProxies): Fetch {
  return (request, env, executionCtx) => {
    const started = performance.now();
    const served = env as ServedEnv | undefined;
    const incoming = served?.incoming;
    const header = (name: string) => (incoming === undefined ? (request.headers.get(name) ?? undefined) : (incoming.headers[name] as string | undefined));
    const given = header('x-request-id');
    const reqId = given !== undefined && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
    served?.outgoing?.setHeader('X-Request-Id', reqId);
    const caller: Caller = { reqId };
    const written = (status: number, ms: number) => {
      const { key, session } = caller;
      write({
        reqId,
        method: request.method,
        path: getPath(request),
        status,
        ms,
        keyId: key?.id,
        client: addressOf(incoming?.socket, proxies, header),
        session,
        read: session !== undefined || key?.scope === 'audit' ? targetOf(incoming, request.url) : undefined,
      });
    };
    // Served by Node, the line waits for the answer to have gone out (or the connection to have closed): the status
    // logged is the one the client got. Writing the answer out can still fail (Node refusing a header, say), and
    // then Node's 500 went out instead. Listened for before the app runs: an answer it writes itself may be out
    // before its promise settles.
    const outgoing = served?.outgoing;
    let ready: { status: number; ms: number } | undefined;
    let gone = outgoing === undefined;
    const writeOnce = () => {
      if (ready === undefined || !gone) return;
      written(outgoing?.headersSent ? outgoing.statusCode : ready.status, ready.ms);
      ready = undefined;
    };
    outgoing?.once('close', () => {
      gone = true;
      writeOnce();
    });
    const settled = (status: number) => {
      ready = { status, ms: Math.round((performance.now() - started) * 10) / 10 };
      writeOnce();
    };
    const answer = (response: Response) => {
      settled(response.status);
      if (outgoing === undefined) response.headers.set('X-Request-Id', reqId);
      return response;
    };
    let answered: Response | Promise<Response>;
    try {
      answered = fetch(request, { ...served, caller }, executionCtx);
    } catch (error) {
      settled(500);
      throw error;
    }
    if (!(answered instanceof Promise)) return answer(answered);
    return answered.then(answer, (error: unknown) => {
      settled(500);
      throw error;
    });
  };
}
