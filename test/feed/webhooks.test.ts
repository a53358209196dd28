import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { DELIVERER_DEFAULTS, type DelivererSettings, HookDeliverer, backoff } from '../../src/feed/webhooks/deliverer.ts';
import { checkedAddress, post, refusedAddress } from '../../src/feed/webhooks/outbound.ts';
import { newSecret } from '../../src/feed/webhooks/signature.ts';
import { Webhooks } from '../../src/feed/webhooks/store.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { manualClock } from '../helpers.ts';
import { engineService } from '../engine-service.ts';

/** A receiver on loopback: what it was sent, and what it answers (by the request's number, from 0). */
async function receiver(answer: (index: number, req: http.IncomingMessage) => number | 'hang' = () => 200) {
  const received: { headers: http.IncomingHttpHeaders; body: string; at: number }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const index = received.push({ headers: req.headers, body, at: Date.now() }) - 1;
      const status = answer(index, req);
      if (status !== 'hang') res.writeHead(status).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve(undefined)))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const LOOPBACK: DelivererSettings = { ...DELIVERER_DEFAULTS, allowPrivate: true };

async function service(clock?: Clock & { advance(ms: number): void }, settings: Partial<DelivererSettings> = {}) {
  const s = await engineService(clock && { clock });
  const hooks = new Webhooks(s.tb);
  const deliverer = new HookDeliverer(s.tb, hooks, { ...LOOPBACK, ...settings }, clock);
  const brands = async (count: number, from = 0) => {
    for (let i = 0; i < count; i += 10) {
      const res = await s.api.write('/api/add-product-brand', 'brand', Array.from({ length: Math.min(10, count - i) }, (_, j) => ({ name: `Бренд ${from + i + j}` })));
      expect(res.status).toBe(200);
    }
  };
  const add = (url: string, more: { types?: string; position?: number } = {}) =>
    hooks.add({ url, types: more.types ?? null, secret: newSecret(), position: more.position ?? 0, now: (clock ?? Date.now)() });
  return { ...s, hooks, deliverer, brands, add };
}

const seqsOf = (body: string) => (JSON.parse(body).data as { seq: number }[]).map((c) => c.seq);

describe('webhooks', () => {
  test('batches of up to 100 in seq order, signed as Standard Webhooks says: the library verifies them, and refuses one altered or replayed', async () => {
    const { brands, add, deliverer, hooks } = await service();
    const target = await receiver();
    await brands(150);
    const id = await add(target.url);
    await deliverer.deliverDue();
    expect(target.received.map((r) => seqsOf(r.body))).toEqual([Array.from({ length: 100 }, (_, i) => i + 1), Array.from({ length: 50 }, (_, i) => i + 101)]);
    expect((await hooks.byId(id))!.position).toBe(150);

    const { secret } = (await hooks.byId(id))!;
    const verifier = new Webhook(secret);
    const [first] = target.received;
    const headers = first.headers as Record<string, string>;
    expect(headers['webhook-id']).toBe(`msg_${id}_1_100`);
    expect(verifier.verify(first.body, headers)).toMatchObject({ meta: { hook: id, after: 0, next: 100, count: 100 }, data: expect.any(Array) });
    // Altered: the body or the id changed after signing.
    expect(() => verifier.verify(first.body.replace('Бренд 1"', 'Бренд 9"'), headers)).toThrow(WebhookVerificationError);
    expect(() => verifier.verify(first.body, { ...headers, 'webhook-id': 'msg_other' })).toThrow(WebhookVerificationError);
    // Replayed later than the library's tolerance: its timestamp is too old.
    const replayed = { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 3600) };
    expect(() => verifier.verify(first.body, replayed)).toThrow(WebhookVerificationError);
    // Another hook's secret does not verify it.
    expect(() => new Webhook(newSecret()).verify(first.body, headers)).toThrow(WebhookVerificationError);
    expect(JSON.stringify(first.body)).not.toMatch(/keyId|tokenHash/);
  });

  test('with no active hook, commits do not make the running deliverer read the log: it looks again each tick', async () => {
    const { brands, deliverer, tb } = await service(undefined, { tickMs: 60_000 });
    const ends = vi.spyOn(tb.audit, 'lastSeq');
    deliverer.start();
    cleanups.push(() => deliverer.stop());
    await brands(50);
    // The one look the loop took when it started.
    expect(ends.mock.calls.length).toBeLessThanOrEqual(1);
  });

  test('a receiver failing three times then succeeding gets each batch acknowledged once, in order, after backoff of 1, 2, 4 s', async () => {
    const clock = manualClock(Date.now());
    const { brands, add, deliverer, hooks } = await service(clock);
    const target = await receiver((index) => (index < 3 ? 500 : 200));
    await brands(120);
    const id = await add(target.url);
    for (const wait of [1000, 2000, 4000]) {
      await deliverer.deliverDue();
      const hook = (await hooks.byId(id))!;
      expect([hook.position, hook.last_error, hook.next_attempt_at - clock()]).toEqual([0, 'the receiver answered 500', wait]);
      // Not due yet: nothing is sent.
      clock.advance(wait - 1);
      await deliverer.deliverDue();
      clock.advance(1);
    }
    expect(target.received).toHaveLength(3);
    await deliverer.deliverDue();
    // The same first batch four times (one id), then the second once; the position moved after each 2xx only.
    expect(target.received.map((r) => r.headers['webhook-id'])).toEqual([`msg_${id}_1_100`, `msg_${id}_1_100`, `msg_${id}_1_100`, `msg_${id}_1_100`, `msg_${id}_101_120`]);
    expect(target.received.flatMap((r, i) => (i < 3 ? [] : seqsOf(r.body)))).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    expect(await hooks.byId(id)).toMatchObject({ position: 120, last_error: null, attempts: 0, failing_since: null });
    expect(backoff(13, DELIVERER_DEFAULTS)).toBe(3_600_000);
  });

  test('a receiver that hangs is timed out; one down for a day pauses the hook with its last error; resumed, it delivers', async () => {
    const clock = manualClock(Date.now());
    const { brands, add, deliverer, hooks } = await service(clock, { totalMs: 500 });
    let down = true;
    const target = await receiver(() => (down ? 'hang' : 200));
    await brands(5);
    const id = await add(target.url);
    const started = performance.now();
    await deliverer.deliverDue();
    expect(performance.now() - started).toBeLessThan(5000);
    expect((await hooks.byId(id))!.last_error).toBe('no answer within 500 ms');
    for (let quarter = 0; quarter < 4; quarter++) {
      clock.advance(6 * 3_600_000);
      await deliverer.deliverDue();
    }
    const paused = (await hooks.byId(id))!;
    expect(paused.paused).toBe('failing for 24 h: no answer within 500 ms');
    expect(paused.position).toBe(0);
    clock.advance(3_600_000);
    const before = target.received.length;
    await deliverer.deliverDue();
    expect(target.received.length).toBe(before);

    down = false;
    expect(await hooks.resume(id)).toBe(true);
    await deliverer.deliverDue();
    expect(await hooks.byId(id)).toMatchObject({ paused: null, position: 5, attempts: 0 });
  });

  test('types: a hook gets only the changes it asked for, its position passing over the others', async () => {
    const { api, brands, add, deliverer, hooks } = await service();
    const target = await receiver();
    await brands(3);
    expect((await api.write('/api/add-product-category', 'category', [{ name: 'Мебель' }])).status).toBe(200);
    await brands(2, 3);
    const id = await add(target.url, { types: 'category' });
    await deliverer.deliverDue();
    expect(target.received.map((r) => seqsOf(r.body))).toEqual([[4]]);
    expect((await hooks.byId(id))!.position).toBe(6);
  });

  test('a receiver at a loopback address is refused unless the setting allows it, nothing sent', async () => {
    const { brands, add, deliverer, hooks } = await service(undefined, { allowPrivate: false });
    const target = await receiver();
    await brands(1);
    const id = await add(target.url);
    await deliverer.deliverDue();
    expect(target.received).toEqual([]);
    expect((await hooks.byId(id))!.last_error).toMatch(/^refused: 127\.0\.0\.1 is a loopback or private address/);
  });
});

describe('outbound safety', () => {
  test('loopback, private, link-local and metadata addresses are refused; names resolving there too; public ones pass', async () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '100.64.0.1', '::1', 'fc00::1', '::ffff:127.0.0.1', '::ffff:a00:1']) {
      expect([address, refusedAddress(address, false)]).toEqual([address, expect.stringMatching(/loopback or private/)]);
      expect([address, refusedAddress(address, true)]).toEqual([address, undefined]);
    }
    for (const address of ['169.254.169.254', 'fd00:ec2::254', 'fe80::1', '0.0.0.0', '224.0.0.1', '::', '::ffff:169.254.169.254']) {
      expect([address, refusedAddress(address, true)]).toEqual([address, expect.stringMatching(/link-local, metadata/)]);
    }
    for (const address of ['93.184.216.34', '2606:2800:220:1::1']) expect(refusedAddress(address, false)).toBeUndefined();
    expect(await checkedAddress(new URL('http://localhost:9/x'), false)).toEqual({ refused: expect.stringMatching(/^localhost resolves to (127\.0\.0\.1|::1) is a loopback/) });
    expect(await checkedAddress(new URL('http://[::1]:9/'), false)).toEqual({ refused: expect.stringMatching(/^::1 is a loopback/) });
    expect(await checkedAddress(new URL('http://169.254.169.254/latest/meta-data'), true)).toEqual({ refused: expect.stringMatching(/metadata/) });
  });

  test('only http and https; no redirect followed; at most a few KB of the answer read', async () => {
    expect(await post('ftp://example.com/x', '{}', {}, LOOPBACK)).toEqual({ error: 'a webhook URL is http or https, not ftp' });
    expect(await post('file:///etc/passwd', '{}', {}, LOOPBACK)).toEqual({ error: 'a webhook URL is http or https, not file' });
    const elsewhere = await receiver();
    const server = http.createServer((req, res) => {
      if (req.url === '/redirect') res.writeHead(307, { Location: elsewhere.url }).end();
      else res.writeHead(200).end('x'.repeat(10 * 1024 * 1024));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect(await post(`${base}/redirect`, '{}', {}, LOOPBACK)).toEqual({ status: 307 });
    expect(elsewhere.received).toEqual([]);
    expect(await post(`${base}/big`, '{}', {}, LOOPBACK)).toEqual({ status: 200 });
  });
});
