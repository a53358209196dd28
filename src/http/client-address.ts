import { type Socket, isIP } from 'node:net';
import type { Context } from 'hono';
import { nodeRequest, requestHeader } from './node-request.ts';
import type { TrustedProxies } from './trusted-proxies.ts';

/** The connection's peer as an address (an IPv4 client of a server listening on every address is IPv4-mapped IPv6). */
const peerOf = (socket: Socket | undefined): string | undefined => socket?.remoteAddress?.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');

/** Whether the request's connection comes from a trusted proxy: only then are its `X-Forwarded-*` headers believed. */
export function fromTrustedProxy(c: Context, proxies: TrustedProxies): boolean {
  return proxies.trusts(peerOf(nodeRequest(c)?.socket));
}

/**
 * The address of the client a request came from: the connection's peer or, when that peer is a trusted proxy
 * (TRADEBOOK_TRUST_PROXY), the last address of `X-Forwarded-For` that is not one of the trusted proxies (those
 * before it are whatever the client claimed). Anyone else's `X-Forwarded-For` is ignored: anyone can send it.
 */
export function clientAddress(c: Context, proxies: TrustedProxies): string {
  return addressOf(nodeRequest(c)?.socket, proxies, (name) => requestHeader(c, name));
}

/** As `clientAddress`, from the connection (none: 'unknown') and a lookup of the request's headers. */
export function addressOf(socket: Socket | undefined, proxies: TrustedProxies, header: (name: string) => string | undefined): string {
  let client = peerOf(socket);
  if (client === undefined) return 'unknown';
  if (!proxies.trusts(client)) return client;
  const hops = (header('x-forwarded-for') ?? '').split(',');
  // From the nearest hop back, past the proxies trusted; an entry that is no address (a proxy's bug, or a
  // client's own made-up value reaching past them) stops the walk at the last hop believed.
  for (let i = hops.length - 1; i >= 0 && proxies.trusts(client); i--) {
    const hop = hops[i].trim();
    if (isIP(hop) === 0) break;
    client = hop;
  }
  return client;
}
