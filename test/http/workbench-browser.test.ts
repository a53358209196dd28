import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect, test, vi } from 'vitest';
import { CHROMIUM, launchChromium, onlyLocal, pageErrors, sayWhenSkipped, screenshotPath } from '../browser.ts';
import { tempDir } from '../helpers.ts';
import { runCli, startServer } from '../server-process.ts';

// Two languages' walks, each page looked at by axe-core at two widths: minutes on a loaded machine.
vi.setConfig({ testTimeout: 480_000 });
sayWhenSkipped('the workbench browser test');

interface TreeNode {
  type: string;
  id: number;
  childes: TreeNode[];
}
const flatten = (node: TreeNode): string[] => [`${node.type}-${node.id}`, ...node.childes.flatMap(flatten)];

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown }[];
}

/** axe-core finds no serious or critical problem on the page as it is laid out now. */
async function accessible(page: Page, what: string): Promise<void> {
  // Evaluated through the browser's devtools protocol, so the pages' policy of no scripts does not stop it; loaded
  // once a page (its 500 KB parsed again for the second width's check of the same page would only cost time).
  const violations = (await page.evaluate(`if (typeof axe === 'undefined') {\n${AXE}\n}\n;axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`)) as AxeViolation[];
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`), what).toEqual([]);
}

/**
 * Looks at the page as an auditor's screen and a phone would: axe-core finds no serious or critical problem at
 * either width, a screenshot at 1280 and at 390 px wide, and at 390 px the page itself does not run off the
 * screen sideways (wide tables scroll inside their own box).
 */
async function look(page: Page, lang: string, name: string): Promise<void> {
  await accessible(page, `${lang} ${name}`);
  await page.screenshot({ path: screenshotPath(`workbench-${lang}`, `${name}-1280`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${lang} ${name} at 390 px`).toBeLessThanOrEqual(0);
  await accessible(page, `${lang} ${name} at 390 px`);
  await page.screenshot({ path: screenshotPath(`workbench-${lang}`, `${name}-390`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

/**
 * The README's pictures of the workbench (docs/workbench-ru.png and docs/workbench-en.png are copies of these):
 * the top of the page at 1280 px, an акт сверки in Russian and a sale in English.
 */
const README_PAGE = { ru: 'statement', en: 'document' } as const;
async function readmeShot(page: Page, lang: 'ru' | 'en', name: string): Promise<void> {
  if (README_PAGE[lang] !== name) return;
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: screenshotPath(`workbench-${lang}`, 'readme'), clip: { x: 0, y: 0, width: 1280, height: 760 } });
}

/** A part of `name` (3 to 8 letters) that 2 to 20 of `names` hold: what picks from a list. */
function sharedPart(name: string, names: string[]): string {
  for (let length = 8; length >= 3; length--)
    for (let at = 0; at + length <= name.length; at++) {
      const part = name.slice(at, at + length);
      const holding = names.filter((other) => other.includes(part)).length;
      if (/^[а-яё]+$/.test(part) && holding >= 2 && holding <= 20) return part;
    }
  throw new Error(`no part of ${name} is shared by a few others`);
}

/** The texts the walk looks for, in each language. */
const WORDS = {
  ru: {
    statementFor: 'Акт сверки за',
    turnover: 'Обороты за период',
    owes: 'задолженность в пользу',
    log: 'Журнал событий',
    asApi: 'Как его показывает API',
    history: 'Документ записан',
    company: 'ООО «Торговый дом Север», ИНН 7701987654, КПП 770101001',
    director: 'Руководитель ____________ / Орлов А. В.',
  },
  en: {
    statementFor: 'Reconciliation for',
    turnover: 'Turnover for the period',
    owes: 'the debt in favour of',
    log: 'Event log',
    asApi: 'As the API shows it',
    history: 'DocumentRecorded',
    company: 'ООО «Торговый дом Север», INN 7701987654, KPP 770101001',
    director: 'Director ____________ / Орлов А. В.',
  },
} as const;

test.skipIf(!CHROMIUM)(
  'an auditor’s day, in Russian and in English: sign in, find a contractor by part of its name, its акт сверки for a year checked against the API and downloaded as XLSX, printed on A4, a document opened from the log, a product as of a date',
  async () => {
    const file = path.join(tempDir(), 'demo.db');
    expect((await runCli(file, ['seed', '--demo'])).status).toBe(0);
    const created = await runCli(file, ['keys', 'create', '--name', 'auditor', '--scope', 'audit', '--json']);
    const auditKey = JSON.parse(created.stdout).key as string;
    const server = await startServer(file, 'tb_workbench_browser_test_key_0123');
    const api = async (url: string, init: RequestInit = {}) =>
      (await fetch(`${server.url}${url}`, { ...init, headers: { Authorization: `Bearer ${auditKey}`, 'Content-Type': 'application/json' } })).json();
    // A sale made from an invoice made from an order, with payments: the demo company's usual chain.
    const sales = (await api('/api/sales?limit=50')).data as { id: number; tree: TreeNode; date: string; contractor: { id: number; name: string } }[];
    const sale = sales.find((s) => s.tree.type === 'customerorder' && flatten(s.tree).some((n) => n.startsWith('paymentin') || n.startsWith('cashin')))!;
    expect(sale).toBeDefined();
    // The year the contractor's page offers: this one, in Moscow.
    const year = new Date(Date.now() + 3 * 3600_000).toISOString().slice(0, 4);
    const contractor = sale.contractor;
    // Part of the name from its middle, in another case than it is written.
    const part = contractor.name.replace(/^[^«"]*[«"]/, '').slice(0, 5).toLowerCase();
    const statement = (await api(`/api/audit/statement?contractor=${contractor.id}&dateFrom=${year}-01-01&dateTo=${year}-12-31`)).data as {
      debit: number;
      credit: number;
      opening: number;
      closing: number;
      lines: unknown[];
    };
    const product = ((await api('/api/products?limit=1')).data as { id: number; name: string }[])[0];
    // The noun of its name (`Усиленная ручка Заря-123`), as an accountant would type it: a list of the products so named to pick from.
    const productWords = product.name.split(' ')[1].toLowerCase();
    // A part of its name that a few other contractors' names hold too: asked for by it, the акт offers a list to pick from.
    const names = ((await api('/api/contractors?limit=100')).data as { name: string }[]).map((k) => k.name.toLowerCase());
    const shared = sharedPart(contractor.name.toLowerCase(), names);
    const { default: ExcelJS } = await import('exceljs');

    const browser = await launchChromium();
    const seen: string[] = [];
    try {
      for (const lang of ['ru', 'en'] as const) {
        const words = WORDS[lang];
        const context = await browser.newContext({ locale: lang === 'ru' ? 'ru-RU' : 'en-US', viewport: { width: 1280, height: 900 }, acceptDownloads: true });
        const page = await context.newPage();
        const outside = await onlyLocal(page);
        const problems = pageErrors(page);

        await page.goto(`${server.url}/audit`);
        expect(new URL(page.url()).pathname).toBe('/audit/sign-in');
        expect(await page.getAttribute('html', 'lang')).toBe(lang);
        await look(page, lang, 'sign-in');
        await page.fill('input[name=key]', auditKey);
        await Promise.all([page.waitForURL('**/audit/documents'), page.click('main button[type=submit]')]);
        // The browser keeps a session cookie (and what ends the session) it cannot read from script, not the key.
        const cookies = await page.context().cookies();
        expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite]).sort()).toEqual([['tb_audit', true, 'Strict'], ['tb_ends', true, 'Strict']]);
        for (const cookie of cookies) expect(cookie.value).not.toContain(auditKey.slice(3));
        expect(cookies.find((c) => c.name === 'tb_ends')?.value).toBe('lifetime');
        await look(page, lang, 'documents');

        // A contractor found by part of its name, and its page.
        await page.click('header a[href="/audit/contractors"]');
        await look(page, lang, 'contractors');
        await page.fill('input[name=q]', part);
        await Promise.all([page.waitForURL('**/audit/contractors?q=**'), page.click('main button[type=submit]')]);
        expect(await page.$$eval('tr[data-contractor]', (rows) => rows.map((r) => r.getAttribute('data-contractor')))).toContain(String(contractor.id));
        await look(page, lang, 'contractors-found');
        // On a phone every column of the list is on the screen, the balance among them, with nothing to scroll.
        await page.setViewportSize({ width: 390, height: 844 });
        const cells = await page.$$eval('table.contractors tbody tr:first-child td', (tds) =>
          tds.map((td) => {
            const box = td.getBoundingClientRect();
            return { text: td.textContent ?? '', left: box.left, right: box.right, width: box.width };
          }),
        );
        expect(cells).toHaveLength(5);
        for (const cell of cells) expect([cell.text, cell.left >= 0 && cell.right <= 390 && cell.width > 0], `${lang} at 390 px`).toEqual([cell.text, true]);
        expect(cells[4].text).toContain('₽');
        expect(await page.$eval('table.contractors', (table) => table.closest('.scroll')!.scrollWidth - table.closest('.scroll')!.clientWidth)).toBeLessThanOrEqual(0);
        await page.setViewportSize({ width: 1280, height: 900 });
        await Promise.all([page.waitForURL(`**/audit/contractor/${contractor.id}`), page.click(`tr[data-contractor="${contractor.id}"] a`)]);
        await look(page, lang, 'contractor');

        // Its акт сверки for the year, from its page: the figures are the API's statement's.
        await Promise.all([page.waitForURL('**/audit/statement?**'), page.click(`a:has-text("${words.statementFor} ${year}")`)]);
        expect(Number(await page.getAttribute('[data-debit]', 'data-debit'))).toBe(statement.debit);
        expect(Number(await page.getAttribute('[data-credit]', 'data-credit'))).toBe(statement.credit);
        expect(Number(await page.getAttribute('[data-opening]', 'data-opening'))).toBe(statement.opening);
        expect(Number(await page.getAttribute('[data-closing]', 'data-closing'))).toBe(statement.closing);
        expect(await page.$$eval('table.statement tr[data-document]', (rows) => rows.length)).toBe(statement.lines.length);
        expect(await page.textContent('table.statement')).toContain(words.turnover);
        expect(statement.closing).not.toBe(0);
        expect(await page.textContent('.act .owes')).toContain(words.owes);
        await look(page, lang, 'statement');

        // The XLSX holds the same rows and totals, amounts as numbers and dates as dates.
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('a[href^="/audit/statement.xlsx"]')]);
        const book = new ExcelJS.Workbook();
        await book.xlsx.load(fs.readFileSync(await download.path()) as never);
        const rows = (book.worksheets[0].getSheetValues().filter(Boolean) as unknown[][]).map((row) => row.slice(1));
        const turnover = rows.find((row) => row[1] === words.turnover)!;
        expect([turnover[2], turnover[3]]).toEqual([statement.debit, statement.credit]);
        expect(rows.filter((row) => row[0] instanceof Date)).toHaveLength(statement.lines.length);

        // The акт asked for from its own form, the contractor picked by part of its name from the list of those
        // holding it, each a link to its акт; the figures are the same.
        await page.click('header a[href="/audit/statement"]');
        await page.fill('input[name=contractorText]', shared);
        await page.fill('input[name=dateFrom]', `01.01.${year}`);
        await page.fill('input[name=dateTo]', `31.12.${year}`);
        await Promise.all([page.waitForURL('**/audit/statement?**'), page.click('main button[type=submit]')]);
        const picks = await page.$$eval('.picks li[data-stream]', (items) => items.map((li) => li.getAttribute('data-stream')));
        expect(picks.length).toBeGreaterThan(1);
        expect(picks).toContain(`contractor-${contractor.id}`);
        await look(page, lang, 'statement-pick');
        await Promise.all([page.waitForURL(`**/audit/statement?**contractor=${contractor.id}`), page.click(`.picks li[data-stream="contractor-${contractor.id}"] a`)]);
        expect(await page.inputValue('input[name=contractorText]')).toBe(contractor.name);
        expect(Number(await page.getAttribute('[data-closing]', 'data-closing'))).toBe(statement.closing);
        await readmeShot(page, lang, 'statement');
        // Its whole name, typed as it is written, is that contractor's акт straight away.
        await page.fill('input[name=contractorText]', contractor.name.toUpperCase());
        // The page asked for is the one shown already: waited for as a new page loaded, not by its address.
        await Promise.all([page.waitForEvent('load'), page.click('main button[type=submit]')]);
        expect(new URL(page.url()).searchParams.get('contractor')).toBe(String(contractor.id));
        expect(Number(await page.getAttribute('[data-debit]', 'data-debit'))).toBe(statement.debit);

        // Printed: A4, without the navigation or the forms.
        await page.emulateMedia({ media: 'print' });
        expect(await page.isVisible('header')).toBe(false);
        expect(await page.isVisible('form.search')).toBe(false);
        expect(await page.isVisible('.downloads')).toBe(false);
        expect(await page.isVisible('.act .signatures')).toBe(true);
        await page.emulateMedia({ media: 'screen' });
        const pdf = await page.pdf({ format: 'A4', preferCSSPageSize: true });
        fs.writeFileSync(screenshotPath(`workbench-${lang}`, 'statement').replace(/\.png$/, '.pdf'), pdf);
        const boxes = [...pdf.toString('latin1').matchAll(/\/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]/g)].map((m) => [Math.round(Number(m[1])), Math.round(Number(m[2]))]);
        expect(boxes.length).toBeGreaterThan(0);
        for (const box of boxes) expect(box).toEqual([595, 842]);
        // Nothing of the page is wider than the A4 sheet's printable width (210 mm less 12 mm margins a side at 96 dpi).
        await page.emulateMedia({ media: 'print' });
        await page.setViewportSize({ width: 703, height: 1000 });
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(703);
        await page.setViewportSize({ width: 1280, height: 900 });
        await page.emulateMedia({ media: 'screen' });

        // The company's side is named by the details the demo set (tradebook company set), and signed by its director.
        expect(await page.textContent('.act .parties')).toContain(words.company);
        expect(await page.textContent('.act .signatures')).toContain(words.director);
        // An act of a month before the company's first document: nothing before it, nothing in it, 0,00 on both sides.
        const before = Number(year) - 1;
        await page.goto(`${server.url}/audit/statement?contractor=${contractor.id}&dateFrom=${before}-01-01&dateTo=${before}-01-31`);
        expect(await page.getAttribute('[data-opening]', 'data-opening')).toBe('0');
        const balanceCells = (label: string) => page.$$eval(`table.statement tr:has(th:text-is("${label}")) td.num`, (cells) => cells.slice(0, 2).map((cell) => cell.textContent));
        expect(await balanceCells(lang === 'ru' ? 'Сальдо начальное' : 'Opening balance')).toEqual(['0,00\u00a0₽', '0,00\u00a0₽']);
        expect(await balanceCells(lang === 'ru' ? 'Сальдо конечное' : 'Closing balance')).toEqual(['0,00\u00a0₽', '0,00\u00a0₽']);
        expect(await page.textContent('.act .parties')).toContain(words.company);

        // The log, newest first: the sale's events, and the sale opened from there.
        await page.click(`header a:has-text("${words.log}")`);
        expect(await page.getAttribute('[data-chain]', 'data-chain')).toBe('ok');
        await look(page, lang, 'log');
        await page.goto(`${server.url}/audit/log?stream=sale-${sale.id}`);
        await page.click('table.log details summary');
        await look(page, lang, 'log-details');
        await Promise.all([page.waitForURL(`**/audit/document/sale/${sale.id}`), page.click(`table.log a[href="/audit/document/sale/${sale.id}"]`)]);
        const nodes = await page.$$eval('svg.tree a[data-node]', (links) => links.map((a) => a.getAttribute('data-node')));
        expect(nodes).toEqual(flatten(sale.tree));
        expect(await page.getAttribute('svg.tree a[data-this]', 'data-node')).toBe(`sale-${sale.id}`);
        const history = (await api(`/api/history?stream=sale-${sale.id}`)).data as unknown[];
        await page.click(`summary:has-text("${words.asApi}")`);
        expect(await page.$$eval('table.history tbody tr', (rows) => rows.length)).toBe(history.length);
        expect(await page.textContent('table.history')).toContain(words.history);
        await look(page, lang, 'document');
        await readmeShot(page, lang, 'document');

        // A product as of a date typed as people write it, the product picked by the start of its name from a list.
        const today = new Date(Date.now() + 3 * 3600_000).toISOString().slice(0, 10);
        await page.click('header a[href="/audit/record"]');
        await page.fill('input[name=stream]', productWords);
        await page.fill('input[name=at]', `${today.slice(8, 10)}.${today.slice(5, 7)}.${today.slice(0, 4)}`);
        await Promise.all([page.waitForURL('**/audit/record?**'), page.click('main button[type=submit]')]);
        const products = await page.$$eval('.picks li[data-stream]', (items) => items.map((li) => li.getAttribute('data-stream')));
        expect(products.length).toBeGreaterThan(1);
        expect(products).toContain(`product-${product.id}`);
        await look(page, lang, 'record-pick');
        await Promise.all([page.waitForURL(`**/audit/record?stream=product-${product.id}&**`), page.click(`.picks li[data-stream="product-${product.id}"] a`)]);
        expect(await page.textContent('h1')).toContain(`${product.name} (product-${product.id})`);
        expect(await page.textContent('h1')).toContain(`${today.slice(8, 10)}.${today.slice(5, 7)}.${today.slice(0, 4)} 23:59:59`);
        expect(await page.$$eval('table.as-of tbody tr', (rows) => rows.length)).toBeGreaterThan(3);
        await look(page, lang, 'record');

        await page.click('header a[href="/audit/anchors"]');
        await look(page, lang, 'anchors');
        expect(problems).toEqual([]);
        // A page that does not exist is answered 404 (which the browser reports as an error) with a page saying so.
        await page.goto(`${server.url}/audit/no-such-page`);
        await look(page, lang, 'not-found');
        expect(outside).toEqual([]);
        seen.push(`${lang}: "${part}" found contractor ${contractor.id}, "${shared}" picked it from ${picks.length}, "${productWords}" picked product ${product.id} from ${products.length}, акт ${year} debit ${statement.debit} credit ${statement.credit} closing ${statement.closing} (${statement.lines.length} lines), XLSX and A4 PDF checked, ${nodes.length} tree nodes`);
        await context.close();
      }
      // What the browser saw, for the record of the run.
      console.log(`${seen.join('; ')}; screenshots in test-results/workbench-ru and test-results/workbench-en`);
    } finally {
      await browser.close();
      await server.stop();
    }
  },
);
