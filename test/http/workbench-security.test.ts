import { createHmac } from 'node:crypto';
import { describe, expect, onTestFinished, test } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { hashSecret } from '../../src/tokens/api-keys.ts';
import { manualClock } from '../helpers.ts';
import { engineService } from '../engine-service.ts';
import { importRecords, line, money, romashka, sale } from '../documents-fixtures.ts';
import { Browser } from '../workbench-client.ts';
import { appOnSocket, trusting } from '../app-on-socket.ts';

const MINUTE = 60 * 1000;

/** The app on a real socket, closed when the test ends. */
async function served(app: Parameters<typeof appOnSocket>[0]) {
  const onSocket = await appOnSocket(app);
  onTestFinished(() => onSocket.close());
  return onSocket;
}

/** A company with an audit key, and the workbench's app made with `options` (failed sign-ins collected). */
async function workbench(options: Parameters<typeof createApp>[1] = {}) {
  const clock = manualClock();
  const service = await engineService({ clock });
  const { id, key } = await service.tb.keys.create({ name: 'auditor', scope: 'audit' });
  const failures: { client: string; reason: string }[] = [];
  const app = createApp(service.tb, { onSignInFailure: (failure) => failures.push(failure), ...options });
  return { ...service, app, clock, keyId: id, auditKey: key, failures };
}

describe('sessions kept by the server', () => {
  test('the database holds only a hash of the session id, and neither it nor the key hash mints a session', async () => {
    const { app, tb, keyId, auditKey, clock } = await workbench();
    const browser = new Browser(app);
    await browser.signIn(auditKey);
    const id = browser.cookie.slice('tb_audit='.length);
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await tb.sessions.count()).toBe(1);
    const { keyHash } = (await tb.keys.activeById(keyId))!;
    // A cookie as sessions were once made: the key's id, an end, and an HMAC under the stored key hash.
    const ends = clock() + 100 * 365 * 24 * 60 * MINUTE;
    const minted = `${keyId}.${ends}.${createHmac('sha256', keyHash).update(`tradebook audit session ${keyId} ${ends}`).digest('base64url')}`;
    const otherId = `${id.slice(0, -1)}${id.endsWith('A') ? 'B' : 'A'}`;
    for (const forged of [minted, hashSecret(id), keyHash, otherId]) {
      const res = await app.request('/audit/log', { headers: { Cookie: `tb_audit=${forged}` } });
      expect([forged, res.status, res.headers.get('location')]).toEqual([forged, 303, '/audit/sign-in?ended=unknown&next=%2Faudit%2Flog']);
    }
    expect((await browser.get('/audit/log')).status).toBe(200);
  });

  test('a session unused for the idle time ends, counted from its last page though its last use is written at most once a minute', async () => {
    const { app, tb, auditKey, clock } = await workbench({ sessionIdleMs: 30 * MINUTE });
    const browser = new Browser(app);
    await browser.signIn(auditKey);
    clock.advance(29 * MINUTE);
    expect((await browser.get('/audit/log')).status).toBe(200);
    clock.advance(29 * MINUTE);
    expect((await browser.get('/audit/log')).status).toBe(200);
    // Used 30 s after its last recorded use: not written, yet the idle time counts from this page.
    clock.advance(30 * 1000);
    expect((await browser.get('/audit/log')).status).toBe(200);
    clock.advance(29 * MINUTE + 59 * 1000);
    expect((await browser.get('/audit/log')).status).toBe(200);
    // Unused for the idle time and the minute its last use may lag by.
    clock.advance(31 * MINUTE);
    const ended = await browser.get('/audit/log');
    expect(ended.status).toBe(401);
    expect(ended.text).toContain('Your session has ended: it was not used for 30 minutes.');
    expect(await tb.sessions.count()).toBe(0);
  });

  test('with an idle time of a minute, pages at 15, 30, 45, 58 and 63 s keep the session, and so does one 59 s after the last', async () => {
    const { app, auditKey, clock } = await workbench({ sessionIdleMs: MINUTE });
    const browser = new Browser(app);
    await browser.signIn(auditKey);
    let at = 0;
    for (const second of [15, 30, 45, 58, 63, 63 + 59]) {
      clock.advance((second - at) * 1000);
      at = second;
      expect([second, (await browser.get('/audit/log')).status]).toEqual([second, 200]);
    }
    // Unused past the minute and the tenth of it its last use may lag by.
    clock.advance(66 * 1000);
    const ended = await browser.get('/audit/log');
    expect([ended.status, ended.text.includes('it was not used for 1 minute. ')]).toEqual([401, true]);
  });

  test('a key has at most 20 live sessions: signing in once more ends its oldest, not another key’s', async () => {
    const { app, tb, auditKey, clock } = await workbench();
    const other = new Browser(app);
    await other.signIn((await tb.keys.create({ name: 'other', scope: 'audit' })).key);
    const browsers: Browser[] = [];
    for (let i = 0; i < 25; i++) {
      clock.advance(1000);
      const browser = new Browser(app);
      expect((await browser.signIn(auditKey)).status).toBe(303);
      browsers.push(browser);
    }
    expect(await tb.sessions.count()).toBe(21);
    const statuses = [];
    for (const browser of browsers) statuses.push((await browser.get('/audit/log')).status);
    expect(statuses).toEqual([...Array(5).fill(303), ...Array(20).fill(200)]);
    expect((await other.get('/audit/log')).status).toBe(200);
  });

  test('a session in steady use ends 8 hours after sign-in, and its cookie says so', async () => {
    const { app, auditKey, clock } = await workbench();
    const browser = new Browser(app);
    expect((await browser.signIn(auditKey)).setCookie).toContain('Max-Age=28800;');
    for (let minutes = 20; minutes < 8 * 60; minutes += 20) {
      clock.advance(20 * MINUTE);
      expect((await browser.get('/audit/documents')).status, `${minutes} min`).toBe(200);
    }
    clock.advance(20 * MINUTE);
    const ended = await browser.get('/audit/documents');
    expect(ended.status).toBe(401);
    expect(ended.text).toContain('Your session has ended: 8 hours have passed since you signed in.');
  });

  test('a session of a key that expires sooner ends with the key; ended sessions are swept when one starts', async () => {
    const { app, tb, clock } = await workbench();
    const { key } = await tb.keys.create({ name: 'brief', scope: 'audit', expiresAt: clock() + 60 * MINUTE });
    const brief = new Browser(app);
    expect((await brief.signIn(key)).setCookie).toContain('Max-Age=3600;');
    const other = new Browser(app);
    await other.signIn(key);
    expect(await tb.sessions.count()).toBe(2);
    clock.advance(45 * MINUTE);
    // Both idle past 30 minutes: the next sign-in deletes them.
    await new Browser(app).signIn((await tb.keys.create({ name: 'next', scope: 'audit' })).key);
    expect(await tb.sessions.count()).toBe(1);
  });
});

describe('no cross-site requests', () => {
  const refusedAs = (res: { status: number; text: string; headers: Headers }, code: string) => {
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.text).toContain(`data-error="${code}"`);
  };

  test('a sign-in posted from another site, or without its form token, is 403 with a page saying why; no session starts', async () => {
    const { app, tb, auditKey } = await workbench();
    const browser = new Browser(app);
    await browser.get('/audit/sign-in');
    const post = (headers: Record<string, string>, form: Record<string, string>) =>
      app.request('/audit/sign-in', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: browser.formCookie, ...headers }, body: new URLSearchParams(form).toString() });
    const read = async (res: Response) => ({ status: res.status, headers: res.headers, text: await res.text() });
    refusedAs(await read(await post({ Origin: 'https://attacker.example' }, { key: auditKey, form: browser.formToken })), 'ERROR_CROSS_SITE');
    refusedAs(await read(await post({ Origin: 'null' }, { key: auditKey, form: browser.formToken })), 'ERROR_CROSS_SITE');
    refusedAs(await read(await post({ 'Sec-Fetch-Site': 'cross-site' }, { key: auditKey, form: browser.formToken })), 'ERROR_CROSS_SITE');
    refusedAs(await read(await post({ Origin: 'http://localhost' }, { key: auditKey })), 'ERROR_FORM_TOKEN');
    refusedAs(await read(await post({ Origin: 'http://localhost' }, { key: auditKey, form: 'A'.repeat(43) })), 'ERROR_FORM_TOKEN');
    // Login CSRF: another site's form posting its own key has no form cookie of this browser to match.
    const noCookie = await app.request('/audit/sign-in', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `key=${auditKey}&form=${browser.formToken}` });
    refusedAs(await read(noCookie), 'ERROR_FORM_TOKEN');
    expect(await tb.sessions.count()).toBe(0);
    refusedAs(await read(await post({ Origin: 'null', 'Sec-Fetch-Site': 'cross-site' }, { key: auditKey, form: browser.formToken })), 'ERROR_CROSS_SITE');
    // What a browser sends from a page whose referrer policy is no-referrer.
    const fine = await post({ Origin: 'null', 'Sec-Fetch-Site': 'same-origin' }, { key: auditKey, form: browser.formToken });
    expect(fine.status).toBe(303);
  });

  test('sign-out and anchors need the session’s own token and this origin: a cross-site post ends nothing', async () => {
    const { app, tb, auditKey } = await workbench();
    const browser = new Browser(app);
    await browser.signIn(auditKey);
    await browser.get('/audit/anchors');
    const other = new Browser(app);
    await other.signIn(auditKey);
    await other.get('/audit/log');
    const post = async (path: string, headers: Record<string, string>, form: Record<string, string>) => {
      const res = await app.request(path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: browser.cookie, ...headers }, body: new URLSearchParams(form).toString() });
      return { status: res.status, headers: res.headers, text: await res.text() };
    };
    for (const path of ['/audit/sign-out', '/audit/anchors']) {
      refusedAs(await post(path, { Origin: 'https://attacker.example' }, { form: browser.formToken }), 'ERROR_CROSS_SITE');
      refusedAs(await post(path, { Origin: 'http://localhost' }, {}), 'ERROR_FORM_TOKEN');
      // Another session's token is not this one's.
      refusedAs(await post(path, { Origin: 'http://localhost' }, { form: other.formToken }), 'ERROR_FORM_TOKEN');
    }
    expect(await tb.sessions.count()).toBe(2);
    expect((await browser.get('/audit/log')).status).toBe(200);
    expect((await browser.request('POST', '/audit/sign-out')).status).toBe(303);
    expect(await tb.sessions.count()).toBe(1);
  });
});

describe('sign-in guessing', () => {
  test('past ten failures a minute from one address the answer is 429 with Retry-After, even for the right key; each failure is told with the address', async () => {
    const { app, auditKey, failures, clock } = await workbench({ trustedProxies: trusting('127.0.0.1') });
    // Through the proxy at 127.0.0.1, which says who each client is and the host the browser addressed.
    const proxy = (await served(app)).from('127.0.0.1');
    const viaProxy = (client: string) => new Browser(proxy, { 'X-Forwarded-For': client, 'X-Forwarded-Host': 'localhost' });
    const guesser = viaProxy('10.0.0.1, 203.0.113.7');
    for (let i = 0; i < 10; i++) expect((await guesser.signIn(`tb_guess_${i}`)).status).toBe(401);
    expect(failures).toEqual(Array.from({ length: 10 }, () => ({ client: '203.0.113.7', reason: 'unknown, revoked or expired key' })));
    clock.advance(15 * 1000);
    const limited = await guesser.signIn(auditKey);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('45');
    expect(limited.text).toContain('Too many failed sign-ins');
    expect(limited.setCookie).toBeNull();
    // Another address is not held up; the guesser's own address again once its failures are a minute old.
    expect((await viaProxy('203.0.113.8').signIn(auditKey)).status).toBe(303);
    clock.advance(45 * 1000);
    expect((await guesser.signIn(auditKey)).status).toBe(303);
  });

  test('without a trusted proxy X-Forwarded-For is ignored: a guesser cannot spread failures over made-up addresses', async () => {
    const { app, failures } = await workbench();
    for (let i = 0; i < 10; i++) expect((await new Browser(app, { 'X-Forwarded-For': `198.51.100.${i}` }).signIn(`tb_guess_${i}`)).status).toBe(401);
    expect(new Set(failures.map((f) => f.client)).size).toBe(1);
    expect((await new Browser(app, { 'X-Forwarded-For': '198.51.100.99' }).signIn('tb_guess')).status).toBe(429);
  });
});

describe('X-Forwarded-* from anyone but the trusted proxies', () => {
  test('wrong keys from an untrusted peer count against that peer whatever X-Forwarded-For says, and cannot lock another address out', async () => {
    const { app, auditKey, failures } = await workbench({ trustedProxies: trusting('127.0.0.1') });
    const onSocket = await served(app);
    // A client connecting straight to the server, naming a new address each time.
    const direct = onSocket.from('127.0.0.2');
    const answers = [];
    for (let i = 0; i < 30; i++) answers.push((await new Browser(direct, { Host: 'localhost', 'X-Forwarded-For': `198.51.100.${i}` }).signIn(`tb_guess_${i}`)).status);
    expect(answers).toEqual([...Array(10).fill(401), ...Array(20).fill(429)]);
    expect(new Set(failures.map((f) => f.client))).toEqual(new Set(['127.0.0.2']));
    // Ten failures sent as 198.51.100.7 from another untrusted peer do not lock out 198.51.100.7 behind the proxy.
    const framer = onSocket.from('127.0.0.3');
    for (let i = 0; i < 10; i++) expect((await new Browser(framer, { Host: 'localhost', 'X-Forwarded-For': '198.51.100.7' }).signIn(`tb_guess_${i}`)).status).toBe(401);
    const real = new Browser(onSocket.from('127.0.0.1'), { 'X-Forwarded-For': '198.51.100.7', 'X-Forwarded-Host': 'localhost' });
    expect((await real.signIn(auditKey)).status).toBe(303);
  });

  test('the cookies are Secure when the trusted proxy says HTTPS, not when anyone else does; X-Forwarded-Host from anyone else is no origin', async () => {
    const { app, auditKey } = await workbench({ trustedProxies: trusting('127.0.0.1') });
    const onSocket = await served(app);
    const secure = (set: string | null) => set !== null && /; Secure/.test(set);
    const viaProxy = new Browser(onSocket.from('127.0.0.1'), { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'localhost' });
    expect(secure((await viaProxy.signIn(auditKey)).setCookie)).toBe(true);
    const direct = new Browser(onSocket.from('127.0.0.2'), { 'X-Forwarded-Proto': 'https', Host: 'localhost' });
    const signed = await direct.signIn(auditKey);
    expect([signed.status, secure(signed.setCookie)]).toEqual([303, false]);
    // A page of another site posting through a client that claims the proxy's host header.
    const forged = await onSocket.from('127.0.0.2').request('/audit/sign-in', {
      method: 'POST',
      headers: { Origin: 'https://attacker.example', 'X-Forwarded-Host': 'attacker.example', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ key: auditKey, form: 'x' }).toString(),
    });
    expect([forged.status, (await forged.text()).includes('ERROR_CROSS_SITE')]).toEqual([403, true]);
  });
});

describe('checks that must keep passing', () => {
  const PAYLOADS = ['<script>alert(1)</script>', '<img src=x onerror=alert(2)>', 'javascript:alert(3)', '</title></textarea><script>alert(4)</script>', '"><svg onload=alert(5)>'];

  test('what records hold is shown as text on every page: no payload in any text field runs', async () => {
    const { app, tb, auditKey } = await workbench();
    const [script, img, js, closing, attribute] = PAYLOADS;
    const imported = await importRecords(tb, [
      line('contractor', { ...romashka, name: script, contactPerson: img, status: attribute }),
      line('product', { id: 1, name: closing, sku: js, categoryId: 0 }),
      sale(3, 1, 500, { number: attribute, products: [{ pr_id: 1, pr_name: img, pr_count: 1, pr_price: 500 }] }),
      money('paymentin', 4, 1, 300, [{ type: 'sale', id: 3 }], { name: script, number: closing }),
    ]);
    expect(imported.failures).toEqual([]);
    const browser = new Browser(app);
    await browser.signIn(auditKey);
    const pages = [
      '/audit/documents?contractor=7',
      `/audit/documents?number=${encodeURIComponent(attribute)}`,
      '/audit/document/sale/3',
      '/audit/document/paymentin/4',
      '/audit/record?stream=product-1',
      '/audit/record?stream=contractor-7',
      '/audit/record?stream=sale-3',
      `/audit/record?stream=${encodeURIComponent(`contractor-status-${attribute}`)}`,
      `/audit/record?stream=${encodeURIComponent(script)}`,
      '/audit/statement?contractor=7&dateFrom=2026-01-01&dateTo=2026-12-31',
      '/audit/log',
      `/audit/log?stream=${encodeURIComponent(closing)}&type=${encodeURIComponent(img)}`,
    ];
    for (const url of pages) {
      const res = await browser.get(url);
      expect([url, res.status]).not.toEqual([url, 500]);
      expect(res.headers.get('content-security-policy'), url).toContain("default-src 'none'");
      for (const payload of PAYLOADS.filter((p) => /[<>"]/.test(p))) expect(res.text, `${url}: ${payload}`).not.toContain(payload);
      expect(res.text, url).not.toMatch(/<(script|img|svg onload)|href="javascript:/i);
    }
    // Shown, as text.
    expect((await browser.get('/audit/document/sale/3')).text).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect((await browser.get('/audit/record?stream=contractor-7')).text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  test('the session cookie is Secure behind HTTPS; every redirect stays on this server’s /audit', async () => {
    const { app, auditKey } = await workbench({ trustedProxies: trusting('127.0.0.1') });
    // Behind the trusted proxy at 127.0.0.1, which terminates HTTPS.
    const secure = new Browser((await served(app)).from('127.0.0.1'), { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'localhost' });
    const signed = await secure.signIn(auditKey);
    expect(signed.setCookie).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
    const browser = new Browser(app);
    const locations: (string | null)[] = [(await browser.signIn(auditKey)).headers.get('location')];
    for (const url of ['/audit', '/audit/documents?type=sale&id=3', '/audit/sign-in?next=https://attacker.example', '//attacker.example/audit']) {
      const res = await browser.get(url);
      if (res.status === 303) locations.push(res.headers.get('location'));
    }
    locations.push((await new Browser(app).get('/audit/log?next=//attacker.example')).headers.get('location'));
    // Sent to sign in, the page asked for goes along (a path under /audit), to be opened after signing in.
    expect(locations).toEqual(['/audit/documents', '/audit/documents', '/audit/document/sale/3', '/audit/sign-in?next=%2Faudit%2Flog%3Fnext%3D%2F%2Fattacker.example']);
    expect((await new Browser(app).get('/audit/sign-in?next=https://attacker.example')).text).toContain('<input type="hidden" name="next" value="/audit/documents">');
    expect((await browser.get('/audit/documents?type=%2F%2Fattacker.example&id=1')).status).toBe(400);
  });

  test('no path reaches a file outside the served assets', async () => {
    const { app, auditKey } = await workbench();
    const browser = new Browser(app);
    await browser.signIn(auditKey);
    for (const url of ['/docs/%2e%2e/package.json', '/docs/..%2Fpackage.json', '/docs/swagger-ui.css%2F..%2F..%2F..%2Fpackage.json', '/audit/..%2F..%2Fpackage.json', '/audit/document/..%2F..%2Fpackage.json/1', '/audit/workbench.css%00.json']) {
      const res = await browser.get(url);
      expect([url, res.status]).toEqual([url, 404]);
      expect(res.text).not.toContain('"name": "tradebook"');
    }
  });
});
