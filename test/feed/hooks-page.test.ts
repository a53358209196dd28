import { describe, expect, test } from 'vitest';
import { newSecret } from '../../src/feed/webhooks/signature.ts';
import { Webhooks } from '../../src/feed/webhooks/store.ts';
import { manualClock } from '../helpers.ts';
import { engineService } from '../engine-service.ts';
import { Browser } from '../workbench-client.ts';

describe('the workbench’s webhooks page', () => {
  test('shows every hook and how it is doing to an auditor, in Russian and English, never a secret; only reads', async () => {
    const clock = manualClock(Date.parse('2026-11-22T09:00:00Z'));
    const { tb, api, app } = await engineService({ clock });
    expect((await api.write('/api/add-product-brand', 'brand', [{ name: 'Дуб' }, { name: 'Бук' }])).status).toBe(200);
    const hooks = new Webhooks(tb);
    const secret = newSecret();
    const working = await hooks.add({ url: 'https://shop.example/hook', types: null, secret, position: 2, now: clock() });
    const failing = await hooks.add({ url: 'https://erp.example/in?a=1&b=<2>', types: 'contractor', secret: newSecret(), position: 0, now: clock() });
    expect(await hooks.lease(failing, 'server', clock(), clock() + 1000)).toBeDefined();
    await hooks.failed(failing, 'server', { error: 'the receiver answered 503', at: clock(), pause: 'failing for 24 h: the receiver answered 503' });

    const { key } = await tb.keys.create({ name: 'auditor', scope: 'audit' });
    const auditor = new Browser(app);
    expect((await auditor.signIn(key)).status).toBe(303);
    const english = await auditor.get('/audit/hooks');
    expect(english.status).toBe(200);
    expect(english.text).toContain('<a href="/audit/hooks" aria-current="page">Webhooks</a>');
    expect(english.text).toMatch(new RegExp(`<tr data-hook="${working}"><td class="num">1</td><td class="mono">https://shop.example/hook</td>\\s*<td>every change</td><td><span class="ok">active</span></td>\\s*<td class="num">2</td><td class="num">0</td>`));
    expect(english.text).toContain('https://erp.example/in?a=1&amp;b=&lt;2&gt;');
    expect(english.text).toContain('paused: failing for 24 h: the receiver answered 503');
    expect(english.text).toContain('the receiver answered 503; since 22.11.2026 12:00:00, 1 attempt');
    expect(english.text).not.toContain(secret.slice(6));
    expect(english.text).not.toContain('<form class="search"');

    const reader = new Browser(app, { 'Accept-Language': 'ru-RU,ru;q=0.9' });
    expect((await reader.signIn(key)).status).toBe(303);
    const russian = await reader.get('/audit/hooks');
    expect(russian.text).toContain('<h1>Вебхуки</h1>');
    expect(russian.text).toContain('приостановлен: failing for 24 h');
    expect(russian.text).toContain('все изменения');

    // An API key's bearer header opens no workbench page.
    expect((await app.request('/audit/hooks', { headers: { Authorization: `Bearer ${key}` } })).status).toBe(303);
  });
});
