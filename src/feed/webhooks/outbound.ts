import { lookup as resolve } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import net, { type LookupFunction } from 'node:net';

/**
 * A POST to an address given by whoever added a webhook: the server's own network must not be reachable through
 * it. Only http and https; the name resolved once and every address it has checked, one in a refused range
 * failing it; the connection made to the address checked (no second resolution a DNS answer could change
 * meanwhile); no redirect followed; bounded in time; at most a few KB of the answer read.
 */

export interface OutboundSettings {
  /** Loopback and private addresses (10/8, 172.16/12, 192.168/16, fc00::/7…) allowed: a receiver on the same network. */
  allowPrivate: boolean;
  connectMs: number;
  totalMs: number;
}

export const OUTBOUND_DEFAULTS: OutboundSettings = { allowPrivate: false, connectMs: 5000, totalMs: 10_000 };

/** Bytes of the answer read at most: its status is what counts. */
const MAX_ANSWER_BYTES = 4096;

/** A list of networks, IPv4 and IPv6, each `address/prefix`. */
function networks(...cidrs: string[]): net.BlockList {
  const list = new net.BlockList();
  for (const cidr of cidrs) {
    const [network, prefix] = cidr.split('/');
    list.addSubnet(network, Number(prefix), net.isIPv4(network) ? 'ipv4' : 'ipv6');
  }
  return list;
}

/** Never reached: link-local (cloud metadata at 169.254.169.254, fd00:ec2::254 aside), unspecified, multicast, reserved. */
const ALWAYS_REFUSED = networks('0.0.0.0/8', '169.254.0.0/16', '224.0.0.0/4', '240.0.0.0/4', '::/128', 'fe80::/10', 'ff00::/8', 'fd00:ec2::254/128');

/** Reached only when the setting allows it: loopback, private, shared and benchmarking networks. */
const PRIVATE = networks('127.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '172.16.0.0/12', '192.0.0.0/24', '192.168.0.0/16', '198.18.0.0/15', '::1/128', 'fc00::/7');

/** The IPv4 address an IPv6 one carries (`::ffff:10.0.0.1`, `::ffff:a00:1`), checked as itself. */
function embeddedIpv4(address: string): string | undefined {
  const match = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!match) return undefined;
  if (match[1]) return match[1];
  const [high, low] = [parseInt(match[2], 16), parseInt(match[3], 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Why `address` may not be called, or undefined. */
export function refusedAddress(address: string, allowPrivate: boolean): string | undefined {
  const v4 = net.isIPv4(address) ? address : embeddedIpv4(address);
  const [checked, family] = v4 === undefined ? [address, 'ipv6' as const] : [v4, 'ipv4' as const];
  if (ALWAYS_REFUSED.check(checked, family)) return `${address} is a link-local, metadata, multicast or reserved address`;
  if (!allowPrivate && PRIVATE.check(checked, family)) return `${address} is a loopback or private address (TRADEBOOK_WEBHOOK_PRIVATE_ADDRESSES=on allows them)`;
  return undefined;
}

/** Why `text` is no webhook URL (http or https, a host, no credentials in it), or undefined. */
export function refusedUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${JSON.stringify(text)} is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `a webhook URL is http or https, not ${url.protocol.slice(0, -1)}`;
  if (url.username || url.password) return 'a webhook URL carries no user name or password';
  return undefined;
}

/** The address to connect to for `url`: its host resolved, every address it has checked; or why not. */
export async function checkedAddress(url: URL, allowPrivate: boolean): Promise<{ address: string; family: 4 | 6 } | { refused: string }> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  try {
    addresses = net.isIP(host) ? [{ address: host, family: net.isIP(host) }] : await resolve(host, { all: true, verbatim: true });
  } catch (error) {
    return { refused: `${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  for (const { address } of addresses) {
    const refused = refusedAddress(address, allowPrivate);
    if (refused !== undefined) return { refused: host === address ? refused : `${host} resolves to ${refused}` };
  }
  return { address: addresses[0].address, family: addresses[0].family as 4 | 6 };
}

export type Answer = { status: number } | { error: string };

/** POSTs `body` to `url` with `headers`; its status, or why there is none. */
export async function post(url: string, body: string, headers: Record<string, string>, settings: OutboundSettings): Promise<Answer> {
  const refusedText = refusedUrl(url);
  if (refusedText !== undefined) return { error: refusedText };
  const target = new URL(url);
  const checked = await checkedAddress(target, settings.allowPrivate);
  if ('refused' in checked) return { error: `refused: ${checked.refused}` };
  // The connection goes to the address checked, whatever a resolver would say now; TLS still checks the name.
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [checked]);
    else callback(null, checked.address, checked.family);
  };
  const request = (target.protocol === 'https:' ? https : http).request;
  return new Promise<Answer>((settle) => {
    let settled = false;
    const done = (answer: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(whole);
      req.destroy();
      settle(answer);
    };
    const req = request(target, {
      method: 'POST',
      lookup: pinned,
      headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'User-Agent': 'tradebook-webhooks' },
      agent: false,
    });
    const whole = setTimeout(() => done({ error: `no answer within ${settings.totalMs} ms` }), settings.totalMs);
    req.on('socket', (socket) => {
      const connecting = setTimeout(() => done({ error: `could not connect within ${settings.connectMs} ms` }), settings.connectMs);
      socket.once(target.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connecting));
      socket.once('close', () => clearTimeout(connecting));
    });
    req.on('error', (error: NodeJS.ErrnoException) => done({ error: error.code ?? error.message }));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) done({ status });
      });
      res.on('end', () => done({ status }));
      res.on('error', () => done({ status }));
    });
    req.end(body);
  });
}
