import type { Context } from 'hono';
import { nodeRequest, requestHeader } from './node-request.ts';

/**
 * The address of the client a request came from: the connection's peer, or, behind a reverse proxy the server
 * is told to trust (TRADEBOOK_TRUST_PROXY), the last address of `X-Forwarded-For` (the one that proxy added;
 * the ones before it are whatever the client claimed). Untrusted, the header is ignored: anyone can send it.
 */
export function clientAddress(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = requestHeader(c, 'x-forwarded-for')?.split(',').at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  const peer = nodeRequest(c)?.socket.remoteAddress;
  // A server listening on every address sees IPv4 clients as IPv4-mapped IPv6 (::ffff:192.0.2.1).
  return peer === undefined ? 'unknown' : peer.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
}
