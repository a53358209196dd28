import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { randomBytes } from 'node:crypto';
import { afterEach, expect, test } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import type { KeyChangeSource } from '../../src/storage/key-changes.ts';
import { KeyCache } from '../../src/tokens/key-cache.ts';
import { ApiClient, manualClock, openSqliteCompany, type SqliteCompany, tempDir } from '../helpers.ts';
import { within } from '../within.ts';

/** A source of changes the test drives by hand: `cache` is what it tells. */
function handSource(): KeyChangeSource & { cache: KeyCache } {
  const source = {
    cache: undefined as unknown as KeyCache,
    start: (cache: KeyCache) => void (source.cache = cache),
    stop: async () => {},
  };
  return source;
}

const key = (id: number) => ({ id, scope: 'api' as const, expiresAt: null });

test('nothing is cached before changes are heard, nor within the bound after; a lookup overtaken by a change keeps nothing', () => {
  let now = 0;
  const lines: string[] = [];
  const source = handSource();
  const cache = new KeyCache({ boundMs: 1000, now: () => now, onTrust: (line) => lines.push(line) }, source);
  cache.keep('a', key(1), cache.ticket());
  expect(cache.size).toBe(0);

  cache.listening();
  now = 999;
  expect(cache.ticket()).toBeUndefined();
  now = 1000;
  cache.keep('a', key(1), cache.ticket());
  expect(cache.get('a')).toEqual(key(1));

  // A read of key 2 started, key 2 was revoked elsewhere, then the read answered: it is not kept.
  const ticket = cache.ticket();
  cache.forget(2);
  cache.keep('b', key(2), ticket);
  expect(cache.get('b')).toBeUndefined();
  expect(cache.get('a')).toEqual(key(1));
  cache.forget(1);
  expect(cache.get('a')).toBeUndefined();

  // Lost: nothing is trusted or kept until heard again and the bound has passed; each is said once.
  cache.keep('a', key(1), cache.ticket());
  cache.lost('the connection closed');
  cache.lost('the connection closed');
  expect(cache.size).toBe(0);
  expect(cache.ticket()).toBeUndefined();
  cache.listening();
  now = 1999;
  expect(cache.ticket()).toBeUndefined();
  now = 2000;
  expect(cache.ticket()).toBeDefined();
  expect(lines).toEqual([
    "key cache off: the connection closed; every request's key is checked in the database until it is back",
    'key cache back: key changes are heard again, cached keys trusted in 1000 ms',
  ]);
});

test('changes that cannot be heard from the start are said once, and their being heard later once', () => {
  const lines: string[] = [];
  const cache = new KeyCache({ boundMs: 1000, onTrust: (line) => lines.push(line) }, handSource());
  cache.lost('cannot listen for key changes (connection refused)');
  cache.lost('cannot listen for key changes (connection refused)');
  cache.listening();
  expect(lines).toEqual([
    "key cache off: cannot listen for key changes (connection refused); every request's key is checked in the database until it is back",
    'key cache back: key changes are heard again, cached keys trusted in 1000 ms',
  ]);
});

test('the cache holds at most its capacity, the oldest going first', () => {
  const cache = new KeyCache({ boundMs: 0, capacity: 3 }, handSource());
  cache.listening();
  for (let id = 1; id <= 5; id++) cache.keep(`k${id}`, key(id), cache.ticket());
  expect(cache.size).toBe(3);
  expect(['k1', 'k2', 'k3', 'k4', 'k5'].map((hash) => cache.get(hash)?.id)).toEqual([undefined, undefined, 3, 4, 5]);
});

const opened: SqliteCompany[] = [];
afterEach(() => opened.splice(0).forEach((tb) => tb.close()));

/** A company on a new SQLite file with a key cache of `boundMs`, its app, and a key; `trace` hears every statement. */
async function cachedService(boundMs: number, clock = manualClock(), trace?: (sql: string) => void) {
  const file = path.join(tempDir(), 'cached.db');
  const tb = await openSqliteCompany(file, { clock, keyCache: { boundMs }, trace });
  opened.push(tb);
  const app = createApp(tb);
  const { key } = await tb.keys.create({ name: 'cached', expiresAt: clock() + 10_000 });
  return { tb, app, file, clock, client: new ApiClient(app, key) };
}

test('a cached key is refused at once when this server revokes it or it expires, and within the bound when another connection revokes it', async () => {
  const { tb, file, clock, client } = await cachedService(200);
  const other = await tb.keys.create({ name: 'other' });
  const otherClient = new ApiClient(client.app, other.key);
  await within(1000, async () => (await client.get('/api/products'), tb.keyCache!.size === 1));
  expect((await otherClient.get('/api/products')).status).toBe(200);
  expect(tb.keyCache!.size).toBe(2);

  // Past its expiry, a cached key is refused from the first request.
  clock.advance(9_999);
  expect((await client.get('/api/products')).status).toBe(200);
  clock.advance(1);
  expect((await client.get('/api/products')).status).toBe(401);

  // Revoked through this company: refused by the very next request.
  await tb.keys.revoke(other.id);
  expect((await otherClient.get('/api/products')).status).toBe(401);

  // Revoked by another connection to the file (as `tradebook keys revoke` does): refused within the bound.
  const third = await tb.keys.create({ name: 'third' });
  const thirdClient = new ApiClient(client.app, third.key);
  await within(1000, async () => (await thirdClient.get('/api/products'), tb.keyCache!.size === 1));
  const elsewhere = await openSqliteCompany(file);
  opened.push(elsewhere);
  await elsewhere.keys.revoke(third.id);
  const took = await within(1000, async () => (await thirdClient.get('/api/products')).status === 401);
  expect(took).toBeLessThan(1000);
});

test('a cached key stays cached across the writes its server commits, though each moves the file’s data_version', async () => {
  const statements: string[] = [];
  const { tb, client } = await cachedService(200, manualClock(), (sql) => statements.push(sql));
  await within(1000, async () => (await client.get('/api/products'), tb.keyCache!.size === 1));
  for (let i = 0; i < 5; i++) expect((await client.write('/api/add-product-brand', 'brand', [{ name: `Brand ${i}` }])).status).toBe(200);
  // Two polls after the last commit, so that at least one saw it.
  const written = statements.length;
  await within(1000, () => statements.slice(written).filter((sql) => sql === 'PRAGMA data_version').length >= 2);
  expect(tb.keyCache!.size).toBe(1);
  const asked = statements.length;
  expect((await client.get('/api/products')).status).toBe(200);
  expect(statements.slice(asked).filter((sql) => sql.includes('FROM api_keys'))).toEqual([]);
});

test('10,000 requests with random unknown keys leave the cache empty and the heap flat', async () => {
  const { tb, app, client } = await cachedService(50);
  await within(1000, async () => (await client.get('/api/products'), tb.keyCache!.size === 1));
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const unknown = (n: number) =>
    Promise.all(Array.from({ length: n }, () => new ApiClient(app, `tb_${randomBytes(30).toString('base64url')}`).get('/api/products')));
  await unknown(1000);
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 10; i++) expect((await unknown(1000)).every((res) => res.status === 401)).toBe(true);
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  expect(tb.keyCache!.size).toBe(1);
  expect(grown).toBeLessThan(1024 * 1024);
});
