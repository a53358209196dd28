import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { ApiClient, manualClock, openSqliteCompany, testService } from '../helpers.ts';
import { storedRows } from '../storage/sqlite/at-rest.ts';
import { TOKEN_READ_FIRST_ABOVE_BYTES } from '../../src/http/write-endpoint.ts';

const codes = (body: { errors: { code: string }[] }) => body.errors.map((e) => e.code);
const brandBody = (name: string) => ({ brand: [{ name }] });

describe('API keys', () => {
  test('no header, an empty one or another scheme is ERROR_NO_API_KEY', async () => {
    const { app } = await testService();
    for (const authorization of [undefined, '', 'Basic abc', 'Bearer ', 'Token x']) {
      const res = await app.request('/api/products', { headers: authorization === undefined ? {} : { Authorization: authorization } });
      expect([authorization, res.status, codes(await res.json())]).toEqual([authorization, 401, ['ERROR_NO_API_KEY']]);
    }
  });

  test('an unknown, revoked or expired key is ERROR_USER_ACCESS, from the next request on', async () => {
    const clock = manualClock();
    const { tb, app, api } = await testService({ clock });
    expect((await new ApiClient(app, 'nope').get('/api/products')).status).toBe(401);

    const revocable = await tb.keys.create({ name: 'r' });
    const client = new ApiClient(app, revocable.key);
    expect((await client.get('/api/products')).status).toBe(200);
    await tb.keys.revoke(revocable.id);
    const refused = await client.get('/api/products');
    expect([refused.status, codes(refused.body)]).toEqual([401, ['ERROR_USER_ACCESS']]);

    const expiring = await tb.keys.create({ name: 'e', expiresAt: clock() + 1000 });
    const temp = new ApiClient(app, expiring.key);
    expect((await temp.get('/api/products')).status).toBe(200);
    clock.advance(1000);
    expect(codes((await temp.get('/api/products')).body)).toEqual(['ERROR_USER_ACCESS']);
    expect((await api.get('/api/products')).status).toBe(200);
  });

  test('keys are stored only as hashes', async () => {
    const { file, key } = await testService();
    const stored = storedRows(file, 'api_keys');
    expect(JSON.stringify(stored)).not.toContain(key);
  });
});

describe('access tokens', () => {
  test('GET issues a token that expires in one minute, shown in Moscow time', async () => {
    const clock = manualClock(Date.parse('2026-11-22T20:59:30Z'));
    const { api } = await testService({ clock });
    const res = await api.get('/api/add-product-brand');
    expect(res.body.data.access_token).toMatch(/^[\w-]{21,}$/);
    expect(res.body.data.expired).toBe('2026-11-23 00:00:30');
  });

  test('a missing, unknown or expired token is ERROR_ACCESS_TOKEN and applies nothing', async () => {
    const clock = manualClock();
    const { api, tb } = await testService({ clock });
    expect(codes((await api.post('/api/add-product-brand', brandBody('A'))).body)).toEqual(['ERROR_ACCESS_TOKEN']);
    expect((await api.post('/api/add-product-brand', brandBody('A'), 'made-up-token-made-up-token')).status).toBe(401);
    const token = await api.token('/api/add-product-brand');
    clock.advance(59_999);
    const stillValid = await api.token('/api/add-product-brand');
    expect((await api.post('/api/add-product-brand', brandBody('A'), stillValid)).status).toBe(200);
    clock.advance(1);
    const expired = await api.post('/api/add-product-brand', brandBody('B'), token);
    expect([expired.status, codes(expired.body)]).toEqual([401, ['ERROR_ACCESS_TOKEN']]);
    expect(await tb.audit.lastSeq()).toBe(1);
  });

  test("a token works only for its own key and path (with or without the trailing slash)", async () => {
    const { api, app, tb } = await testService();
    const other = new ApiClient(app, (await tb.keys.create({ name: 'other' })).key);
    const token = await api.token('/api/add-product-brand/');
    expect((await other.post('/api/add-product-brand', brandBody('A'), token)).status).toBe(401);
    expect((await api.post('/api/edit-product-brand', { brand: [{ id: 1, name: 'x' }] }, token)).status).toBe(401);
    expect((await api.post('/api/add-product-brand/', brandBody('A'), token)).status).toBe(200);
  });

  test('the same body again returns the first answer and applies nothing; another body is refused', async () => {
    const { api, tb } = await testService();
    const token = await api.token('/api/add-product-brand');
    const first = await api.post('/api/add-product-brand', { brand: [{ name: 'A', logo: 'l' }] }, token);
    // The same JSON with keys in another order and other spacing is the same body.
    const again = await api.request('POST', '/api/add-product-brand', { raw: '{ "brand": [ { "logo": "l", "name": "A" } ] }', headers: { 'X-Access-Token': token } });
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    const other = await api.post('/api/add-product-brand', brandBody('B'), token);
    expect([other.status, codes(other.body)]).toEqual([401, ['ERROR_ACCESS_TOKEN']]);
    expect(await tb.audit.lastSeq()).toBe(1);
  });

  test('a token is kept and logged only as its SHA-256: not in access_tokens, not in any event meta an auditor reads; replay works as before', async () => {
    const { api, app, tb, file } = await testService();
    const auditor = new ApiClient(app, (await tb.keys.create({ name: 'auditor', scope: 'audit' })).key);
    const token = await api.token('/api/add-product-brand');
    const hash = createHash('sha256').update(token).digest('hex');
    const stored = () => JSON.stringify(storedRows(file, 'access_tokens'));
    expect(stored()).not.toContain(token);
    expect(stored()).toContain(hash);

    const first = await api.post('/api/add-product-brand', { brand: [{ name: 'A' }, { name: 'B' }] }, token);
    expect(first.status).toBe(200);
    expect(stored()).not.toContain(token);
    const log = await auditor.get('/api/events');
    expect(log.body.data.map((e: { meta: unknown }) => e.meta)).toEqual([
      { keyId: 1, tokenHash: hash },
      { keyId: 1, tokenHash: hash },
    ]);
    expect(log.text).not.toContain(token);
    expect(JSON.stringify(storedRows(file, 'events'))).not.toContain(token);

    const again = await api.post('/api/add-product-brand', { brand: [{ name: 'A' }, { name: 'B' }] }, token);
    expect([again.status, again.text]).toEqual([200, first.text]);
    const other = await api.post('/api/add-product-brand', brandBody('C'), token);
    expect([other.status, codes(other.body)]).toEqual([401, ['ERROR_ACCESS_TOKEN']]);
    expect(await tb.audit.lastSeq()).toBe(2);
  });

  test('a body that differs only by a "__proto__" key is another body: refused on a spent token', async () => {
    const { api } = await testService();
    const token = await api.token('/api/add-product-brand');
    expect((await api.post('/api/add-product-brand', brandBody('A'), token)).status).toBe(200);
    const other = await api.request('POST', '/api/add-product-brand', { raw: '{"brand":[{"name":"A"}],"__proto__":{"x":1}}', headers: { 'X-Access-Token': token } });
    expect(other.status).toBe(401);
    expect(codes(other.body)).toEqual(['ERROR_ACCESS_TOKEN']);
  });

  test('a replay arriving at the same moment as the first POST applies once', async () => {
    const { api, tb } = await testService();
    const token = await api.token('/api/add-product-brand');
    const answers = await Promise.all([1, 2, 3].map(() => api.post('/api/add-product-brand', brandBody('Once'), token)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(await tb.audit.lastSeq()).toBe(1);
  });

  test('a POST rejected with 400 does not spend the token', async () => {
    const { api } = await testService();
    const token = await api.token('/api/add-product-brand');
    expect((await api.post('/api/add-product-brand', { brand: [{ name: '' }] }, token)).status).toBe(400);
    expect((await api.post('/api/add-product-brand', brandBody('Fixed'), token)).status).toBe(200);
  });

  test("a token that cannot be honoured is refused before any problem of the body, small or large; a fresh one gets the body's 400 and stays unspent", async () => {
    const clock = manualClock();
    const { api, app, tb } = await testService({ clock });
    const other = new ApiClient(app, (await tb.keys.create({ name: 'other' })).key);
    const expired = await api.token('/api/add-product-brand');
    clock.advance(60_000);
    const spent = await api.token('/api/add-product-brand');
    expect((await api.post('/api/add-product-brand', brandBody('Spent'), spent)).status).toBe(200);
    const ofAnotherPath = await api.token('/api/add-product');
    const ofAnotherKey = await other.token('/api/add-product-brand');
    // Spaces after the JSON make a body larger than the size up to which it is parsed before its token is read.
    const large = (text: string) => text + ' '.repeat(TOKEN_READ_FIRST_ABOVE_BYTES);
    const bodies = ['{"brand":', '{"brands":[{"name":"A"}]}', '{"brand":[{"name":""}]}'].flatMap((text) => [text, large(text)]);
    for (const token of [undefined, 'made-up-token-made-up-token', expired, spent, ofAnotherPath, ofAnotherKey]) {
      for (const raw of bodies) {
        const res = await api.request('POST', '/api/add-product-brand', { raw, headers: token === undefined ? {} : { 'X-Access-Token': token } });
        expect([res.status, codes(res.body)], `${token} ${raw.trim()}`).toEqual([401, ['ERROR_ACCESS_TOKEN']]);
      }
    }
    const fresh = await api.token('/api/add-product-brand');
    for (const raw of bodies) expect((await api.request('POST', '/api/add-product-brand', { raw, headers: { 'X-Access-Token': fresh } })).status).toBe(400);
    expect((await api.post('/api/add-product-brand', brandBody('Fresh'), fresh)).status).toBe(200);
    // A large body replaying a spent token's is answered as the first time.
    const replay = await api.request('POST', '/api/add-product-brand', { raw: large('{"brand":[{"name":"Spent"}]}'), headers: { 'X-Access-Token': spent } });
    expect([replay.status, replay.body]).toEqual([200, { data: [{ id: 1, name: 'Spent' }] }]);
    expect(await tb.audit.lastSeq()).toBe(2);
  });

  test('tokens live in the database: a second process on the same file honours them', async () => {
    const { api, file } = await testService();
    const token = await api.token('/api/add-product-brand');
    const { createApp } = await import('../../src/http/app.ts');
    const second = await openSqliteCompany(file);
    try {
      const res = await new ApiClient(createApp(second), api.key).post('/api/add-product-brand', brandBody('Elsewhere'), token);
      expect(res.status).toBe(200);
      expect((await api.get('/api/product-brands')).body.data.map((b: { name: string }) => b.name)).toEqual(['Elsewhere']);
    } finally {
      second.close();
    }
  });

  test('expired tokens are swept as new ones are issued', async () => {
    const clock = manualClock();
    const { api, tb } = await testService({ clock });
    for (let i = 0; i < 20; i++) await api.token('/api/add-product');
    clock.advance(61_000);
    await api.token('/api/add-product');
    expect(await tb.tokens.count()).toBe(1);
  });
});
