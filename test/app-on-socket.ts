import http from 'node:http';
import type { Hono } from 'hono';
import type { AppEnv } from '../src/http/env.ts';
import { type ServerSettings, listen } from '../src/http/node-server.ts';
import { TrustedProxies } from '../src/http/trusted-proxies.ts';

/** What sends a request and hands back the answer, as `app.request` does: an app in-process, or a client over a socket. */
export interface Requester {
  request(path: string, init?: RequestInit): Response | Promise<Response>;
}

/**
 * The app served in this process on a real socket (Node's server, as `bin/server.mjs` serves it), where the
 * connection's peer matters: `from(address)` is a client connecting from that loopback address (127.0.0.1 to
 * 127.255.255.254), its requests sent as they are (no redirect followed).
 */
export async function appOnSocket(app: Hono<AppEnv>): Promise<{ port: number; from(localAddress: string): Requester; close(): Promise<void> }> {
  const settings: ServerSettings = {
    port: 0,
    host: '127.0.0.1',
    accessLog: false,
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    maxConnections: 1000,
    maxConnectionsPerClient: 100,
    databaseStallMs: 30_000,
    keyCacheMs: 0,
    sessionIdleMinutes: 30,
    trustedProxies: TrustedProxies.NONE,
  };
  const server = await new Promise<http.Server>((resolve, reject) => {
    const listening: http.Server = listen(app.fetch, settings, () => resolve(listening), reject);
  });
  const { port } = server.address() as { port: number };
  return {
    port,
    from: (localAddress) => ({ request: (path, init) => send(port, localAddress, path, init) }),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The proxies of a TRADEBOOK_TRUST_PROXY value. */
export function trusting(text: string): TrustedProxies {
  const parsed = TrustedProxies.parse(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.proxies;
}

function send(port: number, localAddress: string, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const body = init.body === undefined || init.body === null ? undefined : String(init.body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, localAddress, path, method: init.method ?? 'GET', agent: false, headers: { Host: `127.0.0.1:${port}`, ...Object.fromEntries(headers) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const answer = new Headers();
          for (const [name, value] of Object.entries(res.headers)) for (const one of [value ?? []].flat()) answer.append(name, one);
          const status = res.statusCode!;
          resolve(new Response([204, 304].includes(status) ? null : Buffer.concat(chunks), { status, headers: answer }));
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
