import type { Hono } from 'hono';
import { describe, expect, test, vi } from 'vitest';
import { StorageBusyError } from '../../src/storage/errors.ts';
import { ANCHOR_LIMITS, anchorKeyFrom, newAnchorKey, signAnchor } from '../../src/audit/anchors.ts';
import type { AppEnv } from '../../src/http/env.ts';
import { logger } from '../../src/lib/log.ts';
import { manualClock } from '../helpers.ts';
import { engineService as testService } from '../engine-service.ts';
import { importRecords, line, money, romashka, sale } from '../documents-fixtures.ts';
import { Browser } from '../workbench-client.ts';

/** A company with an order → invoice → sale chain, a posted payment and an unposted one on the sale, and an auditor. */
async function workbench() {
  const clock = manualClock();
  const service = await testService({ clock });
  const { key: auditKey } = await service.tb.keys.create({ name: 'auditor', scope: 'audit' });
  const imported = await importRecords(service.tb, [
    line('contractor', romashka),
    line('product', { id: 1, name: 'Стол', sku: 'T1', categoryId: 0, salePrice: 1000 }),
    line('customerorder', { id: 1, number: 'З-1', date: '2026-11-01', status: 1, contractor: { id: 7 }, products: [{ pr_id: 1, pr_count: 1, pr_price: 500 }] }),
    line('customerinvoice', { id: 2, number: 'С-2', date: '2026-11-01', status: 1, contractor: { id: 7 }, products: [{ pr_id: 1, pr_count: 1, pr_price: 500 }], basedOn: [{ type: 'customerorder', id: 1 }] }),
    sale(3, 1, 500, { number: 'О-3', basedOn: [{ type: 'customerinvoice', id: 2 }] }),
    money('paymentin', 4, 1, 300, [{ type: 'sale', id: 3 }]),
    money('cashin', 5, 0, 200, [{ type: 'sale', id: 3 }]),
  ]);
  expect(imported.failures).toEqual([]);
  const auditor = new Browser(service.app);
  expect((await auditor.signIn(auditKey)).status).toBe(303);
  return { ...service, clock, auditKey, auditor };
}

describe('signing in', () => {
  test('an audit key gives a session cookie (HttpOnly, SameSite=Strict, for /audit, expiring) that never holds the key', async () => {
    const { app, tb } = await testService();
    const { key } = await tb.keys.create({ name: 'auditor', scope: 'audit' });
    const browser = new Browser(app);
    const form = await browser.get('/audit/sign-in');
    expect(form.status).toBe(200);
    expect(form.text).toContain('type="password" name="key"');
    const signed = await browser.signIn(key);
    expect(signed.status).toBe(303);
    expect(signed.headers.get('location')).toBe('/audit/documents');
    expect(signed.setCookie).toMatch(/^tb_audit=[^;]+; Path=\/audit; Max-Age=28800; HttpOnly; SameSite=Strict$/);
    expect(signed.setCookie).not.toContain(key);
    expect(signed.setCookie).not.toContain(key.slice(3, 20));
    expect((await browser.get('/audit/documents')).status).toBe(200);
  });

  test('no session, an API key, an unknown key or a forged cookie are refused; an ended session asks to sign in again', async () => {
    const clock = manualClock();
    const { app, tb, key: apiKey } = await testService({ clock });
    const { key } = await tb.keys.create({ name: 'auditor', scope: 'audit' });
    const stranger = new Browser(app);
    const none = await stranger.get('/audit/document/sale/1');
    expect([none.status, none.headers.get('location')]).toEqual([303, '/audit/sign-in?next=%2Faudit%2Fdocument%2Fsale%2F1']);
    for (const wrong of [apiKey, 'tb_nosuchkey', '']) {
      const refused = await stranger.signIn(wrong);
      expect(refused.status, wrong).toBe(401);
      expect(refused.setCookie, wrong).toBeNull();
    }
    // An API key is refused exactly as an unknown one is: the same status and words.
    const alert = (text: string) => /<p class="bad" role="alert">[^<]*<\/p>/.exec(text)?.[0];
    expect(alert((await stranger.signIn(apiKey)).text)).toBe(alert((await stranger.signIn('tb_nosuchkey')).text));
    expect(alert((await stranger.signIn(apiKey)).text)).toContain('unknown, revoked or expired');

    const browser = new Browser(app);
    await browser.signIn(key);
    const [id, ends, mac] = browser.cookie.slice('tb_audit='.length).split('.');
    // Moving the session's end or signing it with anything but the key's secret is refused.
    for (const forged of [`${id}.${Number(ends) + 1}.${mac}`, `${id}.${ends}.${'A'.repeat(43)}`, `1.${ends}.${mac}`, 'nonsense']) {
      const res = await app.request('/audit/log', { headers: { Cookie: `tb_audit=${forged}` } });
      expect(res.status, forged).toBe(303);
    }
    clock.advance(8 * 60 * 60 * 1000);
    const ended = await browser.get('/audit/log');
    expect(ended.status).toBe(401);
    expect(ended.text).toContain('Your session has ended');
  });

  test('signing out ends the session on the server: its cookie, kept or copied, opens nothing any more', async () => {
    const { app, tb } = await testService();
    const { key } = await tb.keys.create({ name: 'auditor', scope: 'audit' });
    const browser = new Browser(app);
    await browser.signIn(key);
    const cookie = browser.cookie;
    expect((await browser.get('/audit/log')).status).toBe(200);
    expect(await tb.sessions.count()).toBe(1);
    const out = await browser.request('POST', '/audit/sign-out');
    expect([out.status, out.setCookie, out.headers.get('location')]).toEqual([303, 'tb_audit=; Path=/audit; Max-Age=0; HttpOnly; SameSite=Strict', '/audit/sign-in?ended=signed-out']);
    expect(await tb.sessions.count()).toBe(0);
    expect((await browser.get('/audit/sign-in?ended=signed-out')).text).toContain('You have signed out of the workbench.');
    browser.cookie = cookie;
    const again = await browser.get('/audit/log');
    expect([again.status, again.headers.get('location')]).toEqual([303, '/audit/sign-in?ended=unknown&next=%2Faudit%2Flog']);
    expect((await browser.get(again.headers.get('location')!)).text).toContain('Your session has ended. Sign in again.');
  });

  test('revoking the key ends its sessions at once', async () => {
    const { app, tb } = await testService();
    const { id, key } = await tb.keys.create({ name: 'auditor', scope: 'audit' });
    const browser = new Browser(app);
    await browser.signIn(key);
    expect((await browser.get('/audit/log')).status).toBe(200);
    await tb.keys.revoke(id);
    const ended = await browser.get('/audit/log');
    expect(ended.status).toBe(401);
    expect(ended.text).toContain('Your session has ended');
    expect(await tb.sessions.count()).toBe(0);
  });

  test('a session that ended says why on the sign-in page, and signing in goes on to the page first asked for', async () => {
    const { app, tb } = await testService();
    const { id, key } = await tb.keys.create({ name: 'auditor', scope: 'audit' });
    const browser = new Browser(app);
    await browser.signIn(key);
    await tb.keys.revoke(id);
    // The server found the session ended: the sign-in form is the answer to the page asked for, saying why.
    const form = await browser.get('/audit/log?order=oldest');
    expect(form.status).toBe(401);
    expect(form.text).toContain('Your session has ended: the key was revoked or expired.');
    expect(form.text).toContain('<input type="hidden" name="next" value="/audit/log?order=oldest">');
    const { key: other } = await tb.keys.create({ name: 'auditor 2', scope: 'audit' });
    const signed = await browser.request('POST', '/audit/sign-in', { key: other, next: '/audit/log?order=oldest' });
    expect(signed.headers.get('location')).toBe('/audit/log?order=oldest');
    // Only pages of the workbench: anything else goes to the documents.
    for (const next of ['https://evil.example/', '//evil.example/audit', '/api/events', '/audit\\evil']) {
      const elsewhere = new Browser(app);
      await elsewhere.get('/audit/sign-in');
      expect((await elsewhere.request('POST', '/audit/sign-in', { key: other, next })).headers.get('location'), next).toBe('/audit/documents');
    }
  });

  test('a session whose cookie the browser dropped at its end is told why: its 8 hours, or its key expiring sooner', async () => {
    const clock = manualClock();
    const { app, tb } = await testService({ clock });
    const ends = async (expiresAt?: number) => {
      const { key } = await tb.keys.create({ name: 'auditor', scope: 'audit', expiresAt });
      const browser = new Browser(app);
      const signed = await browser.signIn(key);
      const endedBy = signed.headers.getSetCookie().find((set) => set.startsWith('tb_ends='))!;
      expect(endedBy).toMatch(/^tb_ends=(lifetime|key); Path=\/audit; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
      return { browser, endedBy: endedBy.split(';')[0] };
    };
    const lifetime = await ends();
    const brief = await ends(clock() + 60 * 60 * 1000);
    expect([lifetime.endedBy, brief.endedBy]).toEqual(['tb_ends=lifetime', 'tb_ends=key']);
    // The browser has dropped the session's cookie (its Max-Age is the session's time); the other one is left.
    for (const [{ endedBy }, why] of [[lifetime, '8 hours have passed since you signed in'], [brief, 'the key was revoked or expired']] as const) {
      const res = await app.request('/audit/log', { headers: { Cookie: endedBy } });
      expect(res.status).toBe(401);
      const text = await res.text();
      expect(text).toContain(`Your session has ended: ${why}.`);
      expect(text).toContain('<input type="hidden" name="next" value="/audit/log">');
      expect(res.headers.getSetCookie()).toContain('tb_ends=; Path=/audit; Max-Age=0; HttpOnly; SameSite=Strict');
    }
    // Signing out clears it: without a session, nothing is said.
    expect((await lifetime.browser.get('/audit/log')).status).toBe(200);
    const out = await lifetime.browser.request('POST', '/audit/sign-out');
    expect(out.headers.get('location')).toBe('/audit/sign-in?ended=signed-out');
    expect(out.headers.getSetCookie()).toContain('tb_ends=; Path=/audit; Max-Age=0; HttpOnly; SameSite=Strict');
  });

  test('pages are not cached, framed or allowed to run scripts, and escape what records hold', async () => {
    const { auditor, api } = await workbench();
    expect((await api.write('/api/edit-product', 'products', [{ id: 1, name: '<script>alert(1)</script>', sku: 'T1', categoryId: 0 }])).status).toBe(200);
    const res = await auditor.get('/audit/record?stream=product-1');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.text).not.toContain('<script>');
    expect(res.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

describe('finding a document', () => {
  test('by type and id goes to its page; by number, contractor, dates and status lists the matches', async () => {
    const { auditor } = await workbench();
    const direct = await auditor.get('/audit/documents?type=sale&id=3');
    expect([direct.status, direct.headers.get('location')]).toEqual([303, '/audit/document/sale/3']);
    const byNumber = await auditor.get('/audit/documents?number=%D0%A1-2');
    expect(byNumber.text.match(/href="\/audit\/document\/[a-z]+\/\d+"/g)).toEqual(['href="/audit/document/customerinvoice/2"']);
    // Whatever the case, or by the digits alone, leading zeros or not.
    for (const number of ['с-2', ' С-2 ', '2', '0002']) {
      const found = await auditor.get(`/audit/documents?number=${encodeURIComponent(number)}`);
      expect(found.text.match(/href="\/audit\/document\/[a-z]+\/\d+"/g), number).toEqual(['href="/audit/document/customerinvoice/2"']);
    }
    expect((await auditor.get('/audit/documents?number=c-2')).text).toContain('No document matches.');
    const posted = await auditor.get('/audit/documents?contractor=7&status=1&dateFrom=2026-11-02&dateTo=2026-11-03');
    expect(posted.text.match(/href="\/audit\/document\/[a-z]+\/\d+"/g)).toEqual(['href="/audit/document/paymentin/4"', 'href="/audit/document/sale/3"']);
    const bad = await auditor.get('/audit/documents?type=nonsense&dateFrom=2026-02-30');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('<li data-field="type">“Type”: pick one of the list.</li>');
    expect(bad.text).toContain('<li data-field="dateFrom">“From”: give a date as DD.MM.YYYY (e.g. 31.12.2025).</li>');
  });
});

describe("a document's page", () => {
  test('its tree drawn with every node linked and this one marked, paid made up of the posted payment only, and its history', async () => {
    const { auditor, api } = await workbench();
    expect((await api.write('/api/edit-product', 'products', [{ id: 1, name: 'Стол дубовый', sku: 'T1', categoryId: 0 }])).status).toBe(200);
    const res = await auditor.get('/audit/document/sale/3');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>Sale О-3 (sale 3)</h1>');
    expect(res.text).toContain('<dt>Name</dt><dd>Отгрузка</dd>');
    const nodes = [...res.text.matchAll(/<a href="\/audit\/document\/([a-z]+)\/(\d+)" data-node="([a-z]+-\d+)"( data-this="1")?>/g)].map((m) => `${m[3]}${m[4] ? '*' : ''}`);
    expect(nodes).toEqual(['customerorder-1', 'customerinvoice-2', 'sale-3*', 'paymentin-4', 'cashin-5']);
    const paid = res.text.slice(res.text.indexOf('How paid is made up'), res.text.indexOf('<h2>History'));
    expect(paid).toContain('Payment in 4');
    expect(paid).not.toContain('Cash receipt 5');
    expect(paid).toContain('Equals the document&#39;s paid, 300,00\u00a0₽.');
    expect(res.text).toContain('<b title="sum">Sum</b>: <span class="after">500,00\u00a0₽</span>');
    expect(res.text).toContain('import line 5');
  });

  test('an unknown document or type is a 404 page', async () => {
    const { auditor } = await workbench();
    expect((await auditor.get('/audit/document/sale/99')).status).toBe(404);
    expect((await auditor.get('/audit/document/nonsense/1')).status).toBe(404);
  });
});

describe('a record as of a moment', () => {
  test('folded from its events up to the moment, beside now, the changed fields marked; before its first event it did not exist', async () => {
    const { auditor, api, clock, auditKey } = await workbench();
    const before = '2026-11-22 12:30:00';
    clock.advance(60 * 60 * 1000);
    const priced = await api.write('/api/update-product-prices', 'data', [{ sku: 'T1', salePrice: 1250.5 }]);
    expect(priced.status, priced.text).toBe(200);
    // An hour idle ended the session.
    await auditor.signIn(auditKey);
    const res = await auditor.get(`/audit/record?stream=product-1&at=${encodeURIComponent(before)}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<tr class="changed" data-field="salePrice"><th>Sale price <code>salePrice</code></th><td>1\u00a0000,00\u00a0₽</td><td>1\u00a0250,50\u00a0₽</td></tr>');
    expect(res.text).toContain('<tr data-field="name"><th>Name <code>name</code></th><td>Стол</td><td>Стол</td></tr>');
    const earlier = await auditor.get(`/audit/record?stream=product-1&at=${encodeURIComponent('2026-11-22 11:59:59')}`);
    expect(earlier.text).toContain('no event yet: the record did not exist');
    expect((await auditor.get('/audit/record?stream=product-99')).status).toBe(404);
    // Fields naming other records show their names, linked to their pages; nested values field by field.
    const sale = (await auditor.get('/audit/record?stream=sale-3')).text;
    expect(sale).toContain('<th>Contractor <code>contractorId</code></th><td><a href="/audit/contractor/7">ООО Ромашка</a> (7)</td>');
    expect(sale).toContain('<th>Lines 1 · Product <code>products.1.pr_id</code></th><td><a href="/audit/record?stream=product-1">Стол</a> (1)</td>');
    expect(sale).toContain('<th>Lines 1 · Price <code>products.1.pr_price</code></th><td>500,00\u00a0₽</td>');
    expect((await auditor.get('/audit/record?stream=product-1&at=yesterday')).status).toBe(400);
  });
});

describe('the reconciliation statement', () => {
  test('as a page, its closing equal to the balance when nothing is dated later, and as CSV', async () => {
    const { auditor, api } = await workbench();
    const res = await auditor.get('/audit/statement?contractor=7&dateFrom=2026-11-01&dateTo=2026-12-31');
    expect(res.status).toBe(200);
    const balance = (await api.post('/api/contractor', { id: 7 })).body;
    const closing = Number(/data-closing="(-?[\d.]+)"/.exec(res.text)![1]);
    expect(closing).toBe(-200);
    expect(JSON.stringify(balance)).toContain('"balance":-200');
    expect(res.text).toContain('data-reconciled="1"');
    const csv = await auditor.get('/audit/statement.csv?contractor=7&dateFrom=2026-11-01&dateTo=2026-12-31');
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    // For Excel in a Russian locale: a byte-order mark, `;` between fields, decimal commas, the parties named.
    const bytes = new Uint8Array(await (await auditor.app.request('/audit/statement.csv?contractor=7&dateFrom=2026-11-01&dateTo=2026-12-31', { headers: { Cookie: auditor.cookie } })).arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(csv.text.startsWith('Reconciliation statement\r\n')).toBe(true);
    const rows = csv.text.split('\r\n');
    expect(rows).toContain(';Turnover for the period;500,00;300,00;;;;');
    expect(rows).toContain(';Closing balance;200,00;;;;;');
    expect(csv.text).toContain('ООО Ромашка, INN 7701234567, KPP 770101001');
    expect((await auditor.get('/audit/statement?contractor=99&dateFrom=2026-11-01&dateTo=2026-12-31')).status).toBe(404);
  });
});

describe('the log', () => {
  test('pages by seq and filters by stream, each event shown checked against the hash before it, and says what was not checked', async () => {
    const { auditor } = await workbench();
    const all = await auditor.get('/audit/log');
    expect(all.text).toContain('data-chain="ok"');
    expect(all.text).toContain('Each of the');
    expect(all.text).toContain('Not checked');
    const stream = await auditor.get('/audit/log?stream=sale-3');
    expect([...stream.text.matchAll(/<tr data-seq="(\d+)">/g)]).toHaveLength(1);
    expect(stream.text).toContain('data-chain="ok"');
  });
});

describe('links', () => {
  test('a record whose name holds &, #, +, / or a space links to itself from the log page', async () => {
    const { auditor, tb } = await workbench();
    const statuses = ['a&b#c+d', 'VIP клиент / 2?x=1'];
    const imported = await importRecords(tb, statuses.map((status, i) => line('contractor', { ...romashka, id: 20 + i, inn: `77012345${60 + i}`, status })));
    expect(imported.failures).toEqual([]);
    const log = await auditor.get('/audit/log?type=ContractorStatusCreated&order=oldest');
    const links = [...log.text.matchAll(/<a href="([^"]+)">contractor-status-/g)].map((m) => m[1].replaceAll('&amp;', '&'));
    expect(links).toHaveLength(2);
    for (const [i, link] of links.entries()) {
      const record = await auditor.get(link);
      expect(record.status, link).toBe(200);
      const title = `contractor-status-${statuses[i]}`.replaceAll('&', '&amp;');
      expect(record.text).toContain(`<h1>${title} as of`);
      expect(record.text).toContain(`<tr data-field="name"><th>Name <code>name</code></th><td>${statuses[i].replaceAll('&', '&amp;')}</td>`);
    }
  });
});

describe('anchors', () => {
  test('pasted anchors are checked against the log: one that holds, one whose head the log does not have', async () => {
    const { auditor, tb } = await workbench();
    const key = anchorKeyFrom(newAnchorKey())!;
    const seq = await tb.audit.lastSeq();
    const hash = (await tb.audit.hashAt(seq))!;
    const holds = signAnchor({ seq, hash, recordedAt: '2026-11-22T09:00:00.000Z' }, key, new Date());
    const rewritten = signAnchor({ seq, hash: 'f'.repeat(64), recordedAt: '2026-11-22T09:00:00.000Z' }, key, new Date());
    const form = new FormData();
    form.set('anchors', `${JSON.stringify(holds)}\n${JSON.stringify(rewritten)}`);
    await auditor.get('/audit/anchors');
    form.set('form', auditor.formToken);
    const res = await auditor.app.request('/audit/anchors', { method: 'POST', headers: { Cookie: auditor.cookie, Origin: 'http://localhost' }, body: form });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).toContain('1 of 2 anchors fail.');
    expect(text).toContain('the log was rewritten at or below seq');
    const junk = await auditor.request('POST', '/audit/anchors', { anchors: 'not an anchor' });
    expect(junk.status).toBe(400);
  });

  test(`at most ${ANCHOR_LIMITS.count} anchors and ${ANCHOR_LIMITS.bytes / 1024} KiB of them a check: beyond either, a page says so and none is checked`, async () => {
    const { auditor, tb } = await workbench();
    const key = anchorKeyFrom(newAnchorKey())!;
    const seq = await tb.audit.lastSeq();
    const head = { seq, hash: (await tb.audit.hashAt(seq))!, recordedAt: '2026-11-22T09:00:00.000Z' };
    const anchors = Array.from({ length: ANCHOR_LIMITS.count + 1 }, (_, i) => JSON.stringify(signAnchor(head, key, new Date(Date.UTC(2020, 0, 1) + i * 86_400_000))));
    await auditor.get('/audit/anchors');
    const all = await auditor.request('POST', '/audit/anchors', { anchors: anchors.slice(0, ANCHOR_LIMITS.count).join('\n') });
    expect(all.status).toBe(200);
    expect(all.text).toContain(`All ${ANCHOR_LIMITS.count} anchors hold.`);
    const tooMany = await auditor.request('POST', '/audit/anchors', { anchors: anchors.join('\n') });
    expect(tooMany.status).toBe(400);
    expect(tooMany.text).toContain(`more than ${ANCHOR_LIMITS.count} anchors: check at most ${ANCHOR_LIMITS.count} at a time`);
    expect(tooMany.text).not.toContain('data-anchors=');
    const tooLong = await auditor.request('POST', '/audit/anchors', { anchors: `${anchors[0]}\n${' '.repeat(ANCHOR_LIMITS.bytes)}` });
    expect(tooLong.status).toBe(400);
    expect(tooLong.text).toContain(`more than ${ANCHOR_LIMITS.bytes / 1024} KiB of anchors`);
  });
});

describe('in the reader’s language', () => {
  test('a refused post, too many sign-ins and an ended session are said in Russian too', async () => {
    const { app, tb } = await testService();
    const { id, key } = await tb.keys.create({ name: 'auditor', scope: 'audit' });
    const signedIn = new Browser(app, { 'Accept-Language': 'ru' });
    await signedIn.signIn(key);
    await tb.keys.revoke(id);
    expect((await signedIn.get('/audit/log')).text).toContain('Сеанс завершён: ключ отозван или истёк.');
    const { key: other } = await tb.keys.create({ name: 'auditor 2', scope: 'audit' });
    const russian = new Browser(app, { 'Accept-Language': 'ru-RU,ru;q=0.9' });
    await russian.get('/audit/sign-in');
    const crossSite = await app.request('/audit/sign-in', {
      method: 'POST',
      headers: { 'Accept-Language': 'ru', Origin: 'https://attacker.example', Cookie: russian.formCookie, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ key: other, form: russian.formToken }).toString(),
    });
    const refused = await crossSite.text();
    expect(crossSite.status).toBe(403);
    expect(refused).toContain('<h1>Запрос отклонён</h1>');
    expect(refused).toContain('Запрос пришёл с другого сайта (https://attacker.example)');
    expect((await russian.request('POST', '/audit/sign-in', { key: other, form: 'wrong' })).text).toContain('Форма выдана не этим рабочим местом');
    for (let i = 0; i < 10; i++) expect((await russian.signIn('tb_nosuchkey')).text).toContain('Такой ключ не найден, отозван или истёк, или это не ключ аудитора (с областью audit).');
    expect((await russian.signIn(other)).text).toMatch(/Слишком много неудачных попыток входа с вашего адреса: попробуйте снова через \d+ с\./);
  });

  test('Russian when the browser prefers it, English otherwise; a switch on the page is remembered; lang is set', async () => {
    const { auditor } = await workbench();
    const ask = async (headers: Record<string, string>) => (await auditor.app.request('/audit/log', { headers: { Cookie: auditor.cookie, ...headers } })).text();
    const russian = await ask({ 'Accept-Language': 'ru-RU,ru;q=0.9,en;q=0.8' });
    expect(russian).toContain('<html lang="ru">');
    expect(russian).toContain('<h1>Журнал событий</h1>');
    expect(await ask({ 'Accept-Language': 'de-DE,en;q=0.5,ru;q=0.4' })).toContain('<html lang="en">');
    expect(await ask({})).toContain('<h1>The event log</h1>');
    const back = '/audit/log?order=oldest';
    const switched = await auditor.app.request(`/audit/language/ru?back=${encodeURIComponent(back)}`);
    expect([switched.status, switched.headers.get('location')]).toEqual([303, back]);
    const cookie = switched.headers.get('set-cookie')!.split(';')[0];
    expect(cookie).toBe('tb_lang=ru');
    expect(await ask({ 'Accept-Language': 'en', Cookie: `${auditor.cookie}; ${cookie}` })).toContain('<html lang="ru">');
    // Who made a change is said in the reader's words too.
    const sale = await (await auditor.app.request('/audit/document/sale/3', { headers: { Cookie: auditor.cookie, 'Accept-Language': 'ru' } })).text();
    expect(sale).toContain('<td>импорт, строка 5</td>');
    // Fields are named in the reader's words, the record's own name beside.
    expect(sale).toContain('<b title="sum">Сумма</b>');
    const product = await (await auditor.app.request('/audit/record?stream=product-1', { headers: { Cookie: auditor.cookie, 'Accept-Language': 'ru' } })).text();
    expect(product).toContain('<th>Цена продажи <code>salePrice</code></th>');
    expect(sale).toContain('<h1>Отгрузка О-3 (sale 3)</h1>');
    // The switch goes back only to pages of the workbench.
    expect((await auditor.app.request('/audit/language/en?back=https%3A%2F%2Fevil.example')).headers.get('location')).toBe('/audit');
  });

  test('dates typed ДД.ММ.ГГГГ are read, shown the same way; a record as of a date alone is the end of that day', async () => {
    const { auditor, api, clock, auditKey } = await workbench();
    const posted = await auditor.get('/audit/documents?contractor=7&status=1&dateFrom=02.11.2026&dateTo=3.11.2026');
    expect(posted.text.match(/href="\/audit\/document\/[a-z]+\/\d+"/g)).toEqual(['href="/audit/document/paymentin/4"', 'href="/audit/document/sale/3"']);
    expect(posted.text).toContain('value="02.11.2026"');
    clock.advance(2 * 24 * 60 * 60 * 1000);
    expect((await api.write('/api/update-product-prices', 'data', [{ sku: 'T1', salePrice: 1250.5 }])).status).toBe(200);
    await auditor.signIn(auditKey);
    const asOf = await auditor.get('/audit/record?stream=product-1&at=22.11.2026');
    expect(asOf.status).toBe(200);
    expect(asOf.text).toContain('<h1>product-1 as of 22.11.2026 23:59:59</h1>');
    expect(asOf.text).toContain('<td>1\u00a0000,00\u00a0₽</td><td>1\u00a0250,50\u00a0₽</td>');
    expect((await auditor.get('/audit/record?stream=product-1&at=2026-11-22')).status).toBe(200);
    const wrong = await auditor.get('/audit/documents?id=abc');
    expect(wrong.status).toBe(400);
    expect(wrong.text).not.toContain('regex');
    expect(wrong.text).toContain('“Id”: give a whole number.');
  });
});

describe('the акт сверки', () => {
  test('in its customary form in Russian, its figures those of the API’s statement; XLSX from the page and from the API', async () => {
    const { auditor, auditKey } = await workbench();
    const query = 'contractor=7&dateFrom=2026-01-01&dateTo=2026-12-31';
    const res = await auditor.app.request(`/audit/statement?${query}`, { headers: { Cookie: auditor.cookie, 'Accept-Language': 'ru' } });
    const text = await res.text();
    const asked = await auditor.app.request(`/api/audit/statement?${query}`, { headers: { Authorization: `Bearer ${auditKey}` } });
    const statement = ((await asked.json()) as { data: { debit: number; credit: number; closing: number; lines: unknown[] } }).data;
    expect(text).toContain('<h1>Акт сверки взаимных расчётов</h1>');
    expect(text).toContain('за период с 01.01.2026 по 31.12.2026');
    expect(text).toContain('ООО Ромашка, ИНН 7701234567, КПП 770101001');
    expect(text).toContain('По данным ООО Ромашка, руб.');
    expect(text).toContain('Отгрузка № О-3 от 02.11.2026');
    expect(Number(/data-debit="([\d.-]+)"/.exec(text)![1])).toBe(statement.debit);
    expect(Number(/data-credit="([\d.-]+)"/.exec(text)![1])).toBe(statement.credit);
    expect(Number(/data-closing="([\d.-]+)"/.exec(text)![1])).toBe(statement.closing);
    expect(text).toContain('задолженность в пользу');
    expect(text).toContain('200,00\u00a0₽ (должник — ООО Ромашка)');
    expect([...text.matchAll(/<tr data-document=/g)]).toHaveLength(statement.lines.length);

    const { default: ExcelJS } = await import('exceljs');
    for (const [url, headers] of [
      [`/audit/statement.xlsx?${query}`, { Cookie: auditor.cookie, 'Accept-Language': 'ru' }],
      [`/api/audit/statement?${query}&format=xlsx`, { Authorization: `Bearer ${auditKey}` }],
    ] as const) {
      const file = await auditor.app.request(url, { headers });
      expect(file.status, url).toBe(200);
      expect(file.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(Buffer.from(await file.arrayBuffer()) as never);
      const sheet = book.worksheets[0];
      expect(sheet.getCell('A1').value).toBe('Акт сверки взаимных расчётов');
      const rows = sheet.getSheetValues().filter(Boolean) as unknown[][];
      const turnover = rows.find((row) => row[2] === 'Обороты за период')!;
      expect([turnover[3], turnover[4]]).toEqual([statement.debit, statement.credit]);
      const sale = rows.find((row) => row[2] === 'Отгрузка № О-3 от 02.11.2026')!;
      expect(sale[1]).toEqual(new Date('2026-11-02T00:00:00Z'));
      expect(sale[3]).toBe(500);
    }
  });
});

describe('finding a contractor', () => {
  test('by part of its name whatever the case, by INN or by phone; its page links its documents and акт сверки', async () => {
    const { auditor } = await workbench();
    for (const q of ['ромаш', 'РОМАШКА', '7701234567', '8 (916) 123-45-67']) {
      const found = await auditor.get(`/audit/contractors?q=${encodeURIComponent(q)}`);
      expect(found.text.match(/data-contractor="(\d+)"/g), q).toEqual(['data-contractor="7"']);
    }
    const none = await auditor.get('/audit/contractors?q=%25');
    expect(none.text).toContain('No contractor matches “%”.');
    const own = await auditor.get('/audit/contractor/7');
    expect(own.status).toBe(200);
    expect(own.text).toContain('<h1>ООО Ромашка</h1>');
    expect(own.text).toContain('href="/audit/document/sale/3"');
    expect(own.text).toContain('href="/audit/statement?contractor=7&amp;dateFrom=2026-01-01&amp;dateTo=2026-12-31"');
    expect(own.text).toContain('data-balance="-200"');
    expect((await auditor.get('/audit/contractor/99')).status).toBe(404);
    expect((await auditor.get('/audit/contractor/x')).status).toBe(404);
  });
});

describe('the log, read', () => {
  test('newest first by default, oldest first on asking, pages both ways; type and record filters by their start in any case', async () => {
    const { auditor, tb } = await workbench();
    const last = await tb.audit.lastSeq();
    const seqs = (text: string) => [...text.matchAll(/<tr data-seq="(\d+)">/g)].map((m) => Number(m[1]));
    const newest = seqs((await auditor.get('/audit/log')).text);
    expect(newest[0]).toBe(last);
    expect(newest).toEqual([...newest].sort((a, b) => b - a));
    const oldest = seqs((await auditor.get('/audit/log?order=oldest')).text);
    expect(oldest[0]).toBe(1);
    const recorded = await auditor.get('/audit/log?type=documentrec');
    expect(new Set([...recorded.text.matchAll(/<td>([A-Z][A-Za-z]+)<\/td>/g)].map((m) => m[1]))).toEqual(new Set(['DocumentRecorded']));
    const sales = await auditor.get('/audit/log?stream=SALE-');
    expect([...sales.text.matchAll(/<a href="\/audit\/document\/sale\/3">sale-3<\/a>/g)].length).toBe(seqs(sales.text).length);
    expect(sales.text).toContain('<a href="/audit/document/sale/3">sale-3</a>');
    expect((await auditor.get('/audit/log?type=nothing')).text).toContain('No event matches.');
  });

  test('an address under /audit that is no page is a page saying so', async () => {
    const { auditor } = await workbench();
    const missing = await auditor.get('/audit/nowhere');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(missing.text).toContain('The workbench has no such page.');
    const signOut = await auditor.get('/audit/sign-out');
    expect(signOut.status).toBe(404);
    expect(signOut.text).toContain('To sign out, press');
  });
});

describe('a page that fails', () => {
  test('is a page of the workbench with the status the server gave it: 503 and Retry-After when the storage is busy, else 500', async () => {
    const { auditor, tb } = await workbench();
    const busy = vi.spyOn(tb.audit, 'lastSeq').mockRejectedValueOnce(new StorageBusyError('the database is locked'));
    const waited = await auditor.get('/audit/log');
    expect([waited.status, waited.headers.get('content-type'), waited.headers.get('retry-after')]).toEqual([503, 'text/html; charset=utf-8', '1']);
    expect(waited.text).toContain('<h1>The server is busy</h1>');
    busy.mockRejectedValueOnce(new Error('a bug'));
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => {});
    const failed = await auditor.get('/audit/log');
    expect(logged).toHaveBeenCalledTimes(1);
    expect(logged.mock.calls[0]).toEqual([expect.objectContaining({ method: 'GET', path: '/audit/log', error: 'Error: a bug' }), 'unexpected error']);
    logged.mockRestore();
    expect([failed.status, failed.headers.get('content-type')]).toEqual([500, 'text/html; charset=utf-8']);
    expect(failed.text).toContain('nothing was changed');
    busy.mockRestore();
  });
});
