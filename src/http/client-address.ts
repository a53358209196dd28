import type { Socket } from 'node:net';
import type { Context } from 'hono';
import { nodeRequest, requestHeader } from './node-request.ts';

/**
 * The address of the client a request came from: the connection's peer, or, behind a reverse proxy the server
 * is told to trust (TRADEBOOK_TRUST_PROXY), the last address of `X-Forwarded-For` (the one that proxy added;
 * the ones before it are whatever the client claimed). Untrusted, the header is ignored: anyone can send it.
 */
export function clientAddress(c: Context, trustProxy: boolean): string {
  return addressOf(nodeRequest(c)?.socket, trustProxy ? requestHeader(c, 'x-forwarded-for') : undefined);
}

/** As `clientAddress`, from the connection (none: 'unknown') and a trusted `X-Forwarded-For` (undefined: none). */
export function addressOf(socket: Socket | undefined, forwardedFor: string | undefined): string {
  const forwarded = forwardedFor?.split(',').at(-1)?.trim();
  if (forwarded) return forwarded;
  const peer = socket?.remoteAddress;
  // A server listening on every address sees IPv4 clients as IPv4-mapped IPv6 (::ffff:192.0.2.1).
  return peer === undefined ? 'unknown' : peer.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
}
