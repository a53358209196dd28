import path from 'node:path';
import { expect, test, vi } from 'vitest';
import { CHROMIUM, launchChromium, onlyLocal, pageErrors, sayWhenSkipped } from '../browser.ts';
import { tempDir } from '../helpers.ts';
import { startServer } from '../server-process.ts';

vi.setConfig({ testTimeout: 120_000 });

sayWhenSkipped('the /docs browser test');

test('/docs and its assets are served without a key', async () => {
  const server = await startServer(path.join(tempDir(), 'docs.db'), 'tb_docs_test_key_0123456789');
  try {
    for (const [asset, type] of [
      ['/docs', 'text/html; charset=utf-8'],
      ['/docs/swagger-ui.css', 'text/css; charset=utf-8'],
      ['/docs/swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
      ['/docs/init.js', 'text/javascript; charset=utf-8'],
    ]) {
      const res = await fetch(`${server.url}${asset}`);
      expect([asset, res.status, res.headers.get('content-type')]).toEqual([asset, 200, type]);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
  } finally {
    await server.stop();
  }
});

test.skipIf(!CHROMIUM)('the reference page, opened in headless Chromium under its Content-Security-Policy, lists every operation of the OpenAPI document and asks nothing of the internet', async () => {
  const server = await startServer(path.join(tempDir(), 'docs.db'), 'tb_docs_test_key_0123456789');
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const outside = await onlyLocal(page);
    // What the page's Content-Security-Policy blocked, if anything: Swagger UI must work within it.
    const blocked = pageErrors(page);
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector('.opblock', { timeout: 30_000 });
    const shown = await page.$$eval('.opblock', (blocks) =>
      blocks.map((b) => `${b.querySelector('.opblock-summary-method')?.textContent?.toLowerCase()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`),
    );
    const doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(doc.paths).flatMap(([p, methods]) => Object.keys(methods).map((method) => `${method} ${p}`));
    expect(operations.length).toBeGreaterThan(20);
    expect(shown.sort()).toEqual(operations.sort());
    expect(outside).toEqual([]);
    // The operations open and try out under the policy: an expanded one shows its parameters.
    await page.click('.opblock-get .opblock-summary');
    await page.waitForSelector('.opblock.is-open .parameters-container', { timeout: 10_000 });
    expect(blocked).toEqual([]);
  } finally {
    await browser.close();
    await server.stop();
  }
});
