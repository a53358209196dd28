import type { Socket } from 'node:net';
import { expect, test } from 'vitest';
import { addressOf } from '../../src/http/client-address.ts';
import { readServerSettings } from '../../src/http/node-server.ts';
import { TrustedProxies } from '../../src/http/trusted-proxies.ts';
import { trusting } from '../app-on-socket.ts';

test('TRADEBOOK_TRUST_PROXY is off or a list of addresses and CIDR networks; on is refused naming the new form', () => {
  const problem = (value: string) => {
    const read = readServerSettings({ TRADEBOOK_TRUST_PROXY: value });
    return read.ok ? undefined : read.problem;
  };
  expect(problem('on')).toMatch(/^TRADEBOOK_TRUST_PROXY takes the addresses of the proxies to trust now, not on: a comma-separated list of IPs and CIDRs/);
  for (const bad of ['yes', '10.0.0.0/33', '::1/129', '10.0.0.1/8/8', '10.0.0.1,', 'proxy.local', '10.0.0.0/-1']) expect(problem(bad), bad).toMatch(/^TRADEBOOK_TRUST_PROXY must be off or/);
  for (const good of ['off', '', '127.0.0.1', '10.0.0.0/8, 192.168.1.10,::1,fd00::/8']) expect(problem(good), good).toBeUndefined();
  const proxies = trusting('10.0.0.0/8, 192.168.1.10,::1,fd00::/8');
  expect(['10.1.2.3', '::ffff:10.1.2.3', '192.168.1.10', '::1', 'fd12::1'].map((peer) => proxies.trusts(peer))).toEqual([true, true, true, true, true]);
  expect(['11.0.0.1', '192.168.1.11', '::2', '127.0.0.1', 'unknown', undefined].map((peer) => proxies.trusts(peer))).toEqual([false, false, false, false, false, false]);
  expect(TrustedProxies.NONE.trusts('127.0.0.1')).toBe(false);
});

test("the client is the last X-Forwarded-For hop that is no trusted proxy, and only a trusted peer's header is read", () => {
  const socket = (remoteAddress: string) => ({ remoteAddress }) as Socket;
  const proxies = trusting('10.0.0.0/8');
  const forwarded = (value: string | undefined) => (name: string) => (name === 'x-forwarded-for' ? value : undefined);
  expect(addressOf(socket('::ffff:10.0.0.5'), proxies, forwarded('198.51.100.1, 203.0.113.7'))).toBe('203.0.113.7');
  // Two proxies of ours in a row: the client is the hop before them.
  expect(addressOf(socket('10.0.0.5'), proxies, forwarded('198.51.100.1, 203.0.113.7, 10.0.0.9'))).toBe('203.0.113.7');
  // No header, or a hop that is no address: the last hop believed.
  expect(addressOf(socket('10.0.0.5'), proxies, forwarded(undefined))).toBe('10.0.0.5');
  expect(addressOf(socket('10.0.0.5'), proxies, forwarded(`${'x'.repeat(5000)}`))).toBe('10.0.0.5');
  // Anyone else's header is not read at all.
  expect(addressOf(socket('203.0.113.50'), proxies, forwarded('10.0.0.1'))).toBe('203.0.113.50');
  expect(addressOf(undefined, proxies, forwarded('10.0.0.1'))).toBe('unknown');
});
