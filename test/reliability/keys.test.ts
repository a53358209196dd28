import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { formatMoscow } from '../../src/lib/clock.ts';
import { ApiClient, holdFsyncs, manualClock, tempDir, testService, until } from '../helpers.ts';
import { storedRows } from '../storage/sqlite/at-rest.ts';
import { HttpClient, runCli, startServer } from '../server-process.ts';
import { within } from '../within.ts';

const KEY = 'tb_keys_test_key_0123456789abcdef';

/** The key `tradebook keys create` printed alone on its last line. */
async function createKey(file: string, args: string[]): Promise<{ id: number; key: string }> {
  const created = await runCli(file, ['keys', 'create', ...args]);
  expect(created.status, created.stderr).toBe(0);
  const lines = created.stdout.trim().split('\n');
  return { id: Number(/created key (\d+)/.exec(created.stdout)![1]), key: lines[lines.length - 1] };
}

test('without the key cache, keys revoked by the command line while the server runs, or past their expiry, are refused from the next request; no key reaches a log or the event log', async () => {
  const file = path.join(tempDir(), 'keys.db');
  const server = await startServer(file, KEY, { TRADEBOOK_KEY_CACHE_MS: '0' });
  try {
    const second = await createKey(file, ['--name', 'second']);
    const expired = await createKey(file, ['--name', 'expired', '--expires', formatMoscow(Date.now() - 1000)]);

    const asSecond = new HttpClient(server.url, second.key);
    expect((await asSecond.write('/api/add-product-brand', 'brand', [{ name: 'Марка' }])).status).toBe(200);

    // Revoked while the server runs, by another process: the very next request is refused.
    const token = (await asSecond.request('GET', '/api/add-product-brand')).body.data.access_token;
    const revoked = await runCli(file, ['keys', 'revoke', String(second.id)]);
    expect(revoked.status, revoked.stderr).toBe(0);
    for (const res of [
      await asSecond.request('GET', '/api/products'),
      await asSecond.request('POST', '/api/add-product-brand', JSON.stringify({ brand: [{ name: 'Поздно' }] }), { 'X-Access-Token': token }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body.errors[0].code).toBe('ERROR_USER_ACCESS');
    }

    const past = await new HttpClient(server.url, expired.key).request('GET', '/api/products');
    expect([past.status, past.body.errors[0].code]).toEqual([401, 'ERROR_USER_ACCESS']);
    const wrong = await new HttpClient(server.url, 'tb_not_a_key_at_all_987654321').request('GET', '/api/products');
    expect(wrong.status).toBe(401);

    await server.stop();
    const log = server.output();
    const events = storedRows(file, 'events') as { data: string; meta: string }[];
    const stored = JSON.stringify(storedRows(file, 'api_keys')) + JSON.stringify(storedRows(file, 'access_tokens'));
    expect(events.length).toBe(1);
    expect(JSON.parse(events[0].meta)).toMatchObject({ keyId: second.id });
    const listed = await runCli(file, ['keys', 'list', '--json']);
    for (const key of [KEY, second.key, expired.key, 'tb_not_a_key_at_all_987654321']) {
      expect(log).not.toContain(key);
      expect(JSON.stringify(events)).not.toContain(key);
      expect(stored).not.toContain(key);
      expect(listed.stdout + listed.stderr).not.toContain(key);
    }
  } finally {
    await server.stop();
  }
});

test('with the key cache (the default), a key revoked by the command line while the server runs is refused within 1 s', async () => {
  const file = path.join(tempDir(), 'keys.db');
  const server = await startServer(file, KEY);
  try {
    const second = await createKey(file, ['--name', 'second']);
    const asSecond = new HttpClient(server.url, second.key);
    // Asked all along, so the server's cache holds the key again whenever the command line's own opening of the
    // database made it forget.
    let asking = true;
    const asked = (async () => {
      while (asking) await asSecond.request('GET', '/api/products?limit=1');
    })();
    const revoked = await runCli(file, ['keys', 'revoke', String(second.id)]);
    asking = false;
    await asked;
    expect(revoked.status, revoked.stderr).toBe(0);
    const refused = async () => (await asSecond.request('GET', '/api/products?limit=1')).body.errors?.[0].code === 'ERROR_USER_ACCESS';
    expect(await within(1000, refused)).toBeLessThan(1000);
    expect((await new HttpClient(server.url, KEY).request('GET', '/api/products?limit=1')).status).toBe(200);
  } finally {
    await server.stop();
  }
});

test('a key is refused from the first request after its expiry, and its access tokens with it', async () => {
  const clock = manualClock();
  const { tb, api } = await testService({ clock });
  const { key } = await tb.keys.create({ name: 'expiring', expiresAt: clock() + 10_000 });
  const client = new ApiClient(api.app, key);
  const token = await client.token('/api/add-product-brand');
  clock.advance(9_999);
  expect((await client.get('/api/products')).status).toBe(200);
  clock.advance(1);
  for (const res of [await client.get('/api/products'), await client.post('/api/add-product-brand', { brand: [{ name: 'Поздно' }] }, token)]) {
    expect([res.status, res.body.errors[0].code]).toEqual([401, 'ERROR_USER_ACCESS']);
  }
  expect(await tb.audit.lastSeq()).toBe(0);
});

test('a key created or revoked settles only once the WAL holding it is fsynced', async () => {
  const { tb, file } = await testService();
  const wal = `${fs.realpathSync(file)}-wal`;
  const held = holdFsyncs();
  try {
    /** Settles the change only after releasing the fsync it waits for, which must be the WAL's. */
    async function durably<T>(change: Promise<T>): Promise<T> {
      let settled = false;
      void change.then(() => (settled = true));
      await until(() => held.waiting.length > 0);
      const pending = held.waiting.splice(0);
      expect(pending.map((w) => fs.readlinkSync(`/proc/self/fd/${w.fd}`))).toEqual([wal]);
      expect(settled).toBe(false);
      pending.forEach((w) => w.release());
      return change;
    }
    const { id } = await durably(tb.keys.create({ name: 'durable' }));
    expect(await durably(tb.keys.revoke(id))).toBe(true);
  } finally {
    held.restore();
  }
});
