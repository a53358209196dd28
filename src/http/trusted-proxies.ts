import { BlockList, isIP } from 'node:net';

/**
 * The reverse proxies the server believes (TRADEBOOK_TRUST_PROXY): their addresses and networks. Only a request
 * whose connection comes from one of them has its `X-Forwarded-For`, `X-Forwarded-Host` and `X-Forwarded-Proto`
 * read; from anyone else those headers are whatever the client made up, and ignored.
 */
export class TrustedProxies {
  private constructor(
    private readonly list: BlockList,
    /** The setting as given, for messages. */
    readonly text: string,
  ) {}

  /** No proxy trusted: every request's client is its connection's peer. */
  static readonly NONE = new TrustedProxies(new BlockList(), 'off');

  /**
   * The proxies of a setting: `off`, or a comma-separated list of IP addresses and CIDR networks (IPv4 or IPv6);
   * else the one line saying what is wrong.
   */
  static parse(text: string): { ok: true; proxies: TrustedProxies } | { ok: false; problem: string } {
    if (text === 'off') return { ok: true, proxies: TrustedProxies.NONE };
    if (text === 'on') {
      return { ok: false, problem: 'TRADEBOOK_TRUST_PROXY takes the addresses of the proxies to trust now, not on: a comma-separated list of IPs and CIDRs (127.0.0.1, 10.0.0.0/8, ::1), or off' };
    }
    const list = new BlockList();
    for (const item of text.split(',').map((part) => part.trim())) {
      const [address, bits, ...rest] = item.split('/');
      const family = isIP(address);
      const prefix = Number(bits);
      const widest = family === 6 ? 128 : 32;
      if (family === 0 || rest.length > 0 || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && prefix <= widest))) {
        return { ok: false, problem: `TRADEBOOK_TRUST_PROXY must be off or a comma-separated list of IP addresses and CIDR networks, got ${JSON.stringify(item)}` };
      }
      const type = family === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) list.addAddress(address, type);
      else list.addSubnet(address, prefix, type);
    }
    return { ok: true, proxies: new TrustedProxies(list, text) };
  }

  /** Whether a connection from this address comes from a trusted proxy (an IPv4 peer may be written IPv4-mapped). */
  trusts(peer: string | undefined): boolean {
    if (this === TrustedProxies.NONE || peer === undefined) return false;
    const family = isIP(peer);
    return family !== 0 && this.list.check(peer, family === 6 ? 'ipv6' : 'ipv4');
  }
}
