import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { type Socket, isIP } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { DomainError } from '../lib/result.ts';
import { JSON_TYPE, errorsJson } from './respond.ts';
import { TrustedProxies } from './trusted-proxies.ts';

/** The server's settings from the environment, checked before anything starts. */
export interface ServerSettings {
  /** The TCP port to listen on (0: any free one); `host` the address, all of the machine's when undefined. */
  port: number;
  host: string | undefined;
  /** One JSON line a request on standard output. */
  accessLog: boolean;
  /** The headers must arrive within this, the whole request within `requestTimeoutMs`; else 408. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Connections open at once, in all and from one client address; one more is answered 503. */
  maxConnections: number;
  maxConnectionsPerClient: number;
  /** PostgreSQL: a statement unanswered this long fails as a lost connection, and new connections are made. */
  databaseStallMs: number;
  /** The longest a key change made elsewhere takes to reach this server's key cache; 0: no cache, every key read each time. */
  keyCacheMs: number;
  /** A workbench session unused this many minutes has ended. */
  sessionIdleMinutes: number;
  /** The reverse proxies trusted to say the client's address, host and scheme (X-Forwarded-*). */
  trustedProxies: TrustedProxies;
}

type Limit = 'headersTimeoutMs' | 'requestTimeoutMs' | 'maxConnections' | 'maxConnectionsPerClient' | 'databaseStallMs' | 'sessionIdleMinutes';

/** The limits: whole numbers from 1. */
const LIMITS: Record<Limit, [variable: string, fallback: number]> = {
  headersTimeoutMs: ['TRADEBOOK_HEADERS_TIMEOUT_MS', 10_000],
  requestTimeoutMs: ['TRADEBOOK_REQUEST_TIMEOUT_MS', 30_000],
  maxConnections: ['TRADEBOOK_MAX_CONNECTIONS', 2048],
  // A sixteenth of the total: one address, or a few, cannot take every place.
  maxConnectionsPerClient: ['TRADEBOOK_MAX_CONNECTIONS_PER_CLIENT', 128],
  databaseStallMs: ['TRADEBOOK_DB_STALL_MS', 30_000],
  sessionIdleMinutes: ['TRADEBOOK_SESSION_IDLE_MINUTES', 30],
};

/** A host name or an IP address, as `listen` takes it. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** The settings, or the one line saying which is wrong. An empty variable counts as unset. */
export function readServerSettings(env: NodeJS.ProcessEnv): { ok: true; settings: ServerSettings } | { ok: false; problem: string } {
  const portText = env.PORT || '3000';
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) return { ok: false, problem: `PORT must be a TCP port, 0 to 65535 (0: any free port), got ${JSON.stringify(portText)}` };
  const host = env.TRADEBOOK_HOST || undefined;
  if (host !== undefined && isIP(host) === 0 && !HOST.test(host)) return { ok: false, problem: `TRADEBOOK_HOST must be an IP address or a host name, got ${JSON.stringify(host)}` };
  const accessLog = env.TRADEBOOK_ACCESS_LOG || 'on';
  if (accessLog !== 'on' && accessLog !== 'off') return { ok: false, problem: `TRADEBOOK_ACCESS_LOG must be on or off, got ${JSON.stringify(accessLog)}` };
  const keyCacheText = env.TRADEBOOK_KEY_CACHE_MS || '1000';
  if (!/^\d{1,9}$/.test(keyCacheText)) return { ok: false, problem: `TRADEBOOK_KEY_CACHE_MS must be a whole number from 0 (0: no key cache), got ${JSON.stringify(keyCacheText)}` };
  const trusted = TrustedProxies.parse(env.TRADEBOOK_TRUST_PROXY || 'off');
  if (!trusted.ok) return trusted;
  const settings = { port: Number(portText), host, accessLog: accessLog === 'on', trustedProxies: trusted.proxies, keyCacheMs: Number(keyCacheText) } as ServerSettings;
  for (const [name, [variable, fallback]] of Object.entries(LIMITS) as [Limit, [string, number]][]) {
    const text = env[variable] || String(fallback);
    if (!/^[1-9]\d{0,9}$/.test(text)) return { ok: false, problem: `${variable} must be a whole number from 1, got ${JSON.stringify(text)}` };
    settings[name] = Number(text);
  }
  if (settings.headersTimeoutMs > settings.requestTimeoutMs) {
    return { ok: false, problem: `TRADEBOOK_HEADERS_TIMEOUT_MS (${settings.headersTimeoutMs}) must not exceed TRADEBOOK_REQUEST_TIMEOUT_MS (${settings.requestTimeoutMs})` };
  }
  if (settings.maxConnectionsPerClient > settings.maxConnections) {
    return { ok: false, problem: `TRADEBOOK_MAX_CONNECTIONS_PER_CLIENT (${settings.maxConnectionsPerClient}) must not exceed TRADEBOOK_MAX_CONNECTIONS (${settings.maxConnections})` };
  }
  return { ok: true, settings };
}

/** A whole HTTP/1.1 error answer in the API's error form, written straight to a socket; the connection closes after it. */
function rawErrorAnswer(status: number, error: DomainError): string {
  const body = errorsJson([error]);
  // A 503 here is a full server: worth trying again in a moment.
  const retry = status === 503 ? 'Retry-After: 1\r\n' : '';
  return `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: ${JSON_TYPE}\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${retry}Connection: close\r\n\r\n${body}`;
}

/** Node's parser and timeouts refuse these before the app sees a request; they are answered in the same form as the app's errors. */
function clientErrorAnswer(error: NodeJS.ErrnoException, settings: ServerSettings): string {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return rawErrorAnswer(431, { code: 'ERROR_HEADERS_TOO_LARGE', message: `the request's headers are larger than ${http.maxHeaderSize} bytes` });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return rawErrorAnswer(408, {
        code: 'ERROR_TIMEOUT',
        message: `the headers must arrive within ${settings.headersTimeoutMs} ms and the whole request within ${settings.requestTimeoutMs} ms`,
      });
    default:
      return rawErrorAnswer(400, { code: 'ERROR_BAD_REQUEST', message: `the request is not well-formed HTTP/1.1 (${error.code ?? 'unreadable'})` });
  }
}

/**
 * Counts connections in all and per client address. One over the per-client cap is answered 503 and closed; it
 * never reaches the HTTP parser. At the total cap, the connection that has waited longest without sending a whole
 * request head (a client sending its headers a byte at a time, or nothing) is dropped to make room, so clients
 * holding connections open that way cannot keep everyone else out; only when every connection has sent a request
 * is the new one answered 503. Node's own connection handling is the server's `connection` listener, so it is
 * called only for the connections admitted.
 */
function capConnections(server: http.Server, settings: ServerSettings): void {
  const [serveConnection] = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeListener('connection', serveConnection);
  let open = 0;
  const byClient = new Map<string, number>();
  /** The connections that have not sent a whole request head yet, oldest first, each with what counts it out. */
  const headless = new Map<Socket, () => void>();
  server.on('request', (req: IncomingMessage) => headless.delete(req.socket));
  server.on('connection', (socket: Socket) => {
    const client = socket.remoteAddress;
    if (client === undefined) return socket.destroy(); // already gone
    if ((byClient.get(client) ?? 0) >= settings.maxConnectionsPerClient) return refuse(socket, tooMany(`${settings.maxConnectionsPerClient} from one address`));
    if (open >= settings.maxConnections) {
      const oldest = headless.entries().next().value;
      if (oldest === undefined) return refuse(socket, tooMany(`${settings.maxConnections} in all`));
      const [dropped, countOut] = oldest;
      // Counted out at once: its place is the new connection's.
      countOut();
      dropped.destroy();
    }
    open += 1;
    byClient.set(client, (byClient.get(client) ?? 0) + 1);
    let counted = true;
    const countOut = () => {
      if (!counted) return;
      counted = false;
      headless.delete(socket);
      open -= 1;
      const left = byClient.get(client)! - 1;
      if (left === 0) byClient.delete(client);
      else byClient.set(client, left);
    };
    headless.set(socket, countOut);
    socket.once('close', countOut);
    lingerBeforeClosing(socket);
    serveConnection.call(server, socket);
  });
}

const tooMany = (limit: string) => rawErrorAnswer(503, { code: 'ERROR_TOO_MANY_CONNECTIONS', message: `too many connections open (at most ${limit}); try again later` });

/** How long a connection answered with `Connection: close` is still read before it is cut off. */
const LINGER_MS = 500;

/**
 * After an answer that closes the connection (a 413 while the body is still coming), Node ends the socket and
 * destroys it at once. A client still sending then gets a reset, and a reset can discard the answer before the
 * client has read it. So the socket is ended, what the client still sends is read and dropped, and it is
 * destroyed when the client closes its side or after LINGER_MS.
 */
function lingerBeforeClosing(socket: Socket): void {
  socket.destroySoon = function destroySoonAfterLingering(this: Socket) {
    if (this.writable) this.end();
    this.resume();
    const cutOff = setTimeout(() => this.destroy(), LINGER_MS);
    cutOff.unref();
    this.once('end', () => {
      clearTimeout(cutOff);
      this.destroy();
    });
  };
}

/**
 * Answers and closes a connection the server will not serve. What the client sends meanwhile is read and
 * dropped, so closing does not reset the connection before the client has read the answer; a client that
 * never closes its side is cut off after a second.
 */
function refuse(socket: Socket, answer: string): void {
  socket.on('error', () => {});
  socket.resume();
  socket.end(answer);
  setTimeout(() => socket.destroy(), 1000).unref();
}

/**
 * The HTTP server of the app: Node's, with hono's adapter as its request listener, the connection caps, and
 * every answer Node would give by itself (malformed requests, oversized headers, timeouts) in the API's
 * error form. The server is returned starting to listen on the settings' port and host; `onListening` hears the
 * port once it listens, `onListenFailed` why it could not (the port taken, the address not the machine's).
 */
export function listen(
  fetch: Parameters<typeof getRequestListener>[0],
  settings: ServerSettings,
  onListening: (port: number) => void,
  onListenFailed: (error: NodeJS.ErrnoException) => void,
): http.Server {
  // HTTP/1.0 needs no Host, and the app reads only the path: a request without one gets this name.
  const serveRequest = getRequestListener(fetch, { hostname: 'localhost' });
  const server = http.createServer(
    {
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      // Node enforces both timeouts only when it checks its connections, every 30 s by default.
      connectionsCheckingInterval: 1000,
      // An HTTP/1.1 request without Host is refused below, in the error form (Node's own 400 has no body).
      requireHostHeader: false,
    },
    (req: IncomingMessage, res: ServerResponse) => {
      if (req.headers.host === undefined && req.httpVersion !== '1.0') {
        const body = errorsJson([{ code: 'ERROR_BAD_REQUEST', message: 'an HTTP/1.1 request must have a Host header' }]);
        res.writeHead(400, { 'Content-Type': JSON_TYPE, 'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(body), Connection: 'close' }).end(body);
        return;
      }
      void serveRequest(req, res);
    },
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // As Node does: an answer only when none of the request's own answer has been written yet.
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (error.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) socket.write(clientErrorAnswer(error, settings));
    socket.destroy();
  });
  capConnections(server, settings);
  server.once('error', onListenFailed);
  server.listen(settings.port, settings.host, () => {
    server.off('error', onListenFailed);
    onListening((server.address() as { port: number }).port);
  });
  return server;
}
