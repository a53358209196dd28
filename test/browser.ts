import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';

/** Debian's chromium (CI installs it); undefined where there is none, and the browser tests say they are skipped. */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((file) => fs.existsSync(file));

export function sayWhenSkipped(what: string): void {
  if (!CHROMIUM) process.stderr.write(`no Chromium at /usr/bin/chromium: ${what} is skipped (apt-get install chromium to run it)\n`);
}

/** Headless Chromium that asks nothing of the network by itself (no updates, sync or background fetches). */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** Lets the page reach only the server under test; every other address it asks for is refused and listed. */
export async function onlyLocal(page: Page): Promise<string[]> {
  const outside: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1') return route.continue();
    outside.push(url.href);
    return route.abort();
  });
  return outside;
}

/** Where browser tests leave their screenshots (git-ignored). */
export function screenshotPath(test: string, name: string): string {
  const dir = path.resolve(import.meta.dirname, '..', 'test-results', test);
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `${name}.png`);
}

/** The page's script errors and console errors (a Content-Security-Policy's refusals among them), as they come. */
export function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}
