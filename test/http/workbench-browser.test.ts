import path from 'node:path';
import { expect, test, vi } from 'vitest';
import { CHROMIUM, launchChromium, onlyLocal, sayWhenSkipped, screenshotPath } from '../browser.ts';
import { tempDir } from '../helpers.ts';
import { runCli, startServer } from '../server-process.ts';

vi.setConfig({ testTimeout: 180_000 });
sayWhenSkipped('the workbench browser test');

interface TreeNode {
  type: string;
  id: number;
  childes: TreeNode[];
}
const flatten = (node: TreeNode): string[] => [`${node.type}-${node.id}`, ...node.childes.flatMap(flatten)];

test.skipIf(!CHROMIUM)(
  'an auditor signs in, finds a sale of the demo company, sees its tree and history, and opens its contractor’s statement',
  async () => {
    const file = path.join(tempDir(), 'demo.db');
    expect((await runCli(file, ['seed', '--demo'])).status).toBe(0);
    const created = await runCli(file, ['keys', 'create', '--name', 'auditor', '--scope', 'audit', '--json']);
    const auditKey = JSON.parse(created.stdout).key as string;
    const server = await startServer(file, 'tb_workbench_browser_test_key_0123');
    const api = async (url: string) => (await fetch(`${server.url}${url}`, { headers: { Authorization: `Bearer ${auditKey}` } })).json();
    // A sale made from an invoice made from an order, with payments: the demo company's usual chain.
    const sales = (await api('/api/sales?limit=50')).data as { id: number; tree: TreeNode }[];
    const sale = sales.find((s) => s.tree.type === 'customerorder' && flatten(s.tree).some((n) => n.startsWith('paymentin') || n.startsWith('cashin')))!;
    expect(sale).toBeDefined();

    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const outside = await onlyLocal(page);
      const problems: string[] = [];
      page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
      page.on('pageerror', (error) => problems.push(error.message));

      await page.goto(`${server.url}/audit`);
      expect(new URL(page.url()).pathname).toBe('/audit/sign-in');
      await page.fill('input[name=key]', auditKey);
      await Promise.all([page.waitForURL('**/audit/documents'), page.click('button[type=submit]')]);
      // The browser keeps a session cookie it cannot read from script, not the key.
      const cookies = await page.context().cookies();
      expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([['tb_audit', true, 'Strict']]);
      expect(cookies[0].value).not.toContain(auditKey.slice(3));

      await page.selectOption('select[name=type]', 'sale');
      await page.fill('input[name=id]', String(sale.id));
      await Promise.all([page.waitForURL(`**/audit/document/sale/${sale.id}`), page.click('form.search button')]);
      const nodes = await page.$$eval('svg.tree a[data-node]', (links) => links.map((a) => a.getAttribute('data-node')));
      expect(nodes).toEqual(flatten(sale.tree));
      expect(await page.getAttribute('svg.tree a[data-this]', 'data-node')).toBe(`sale-${sale.id}`);
      expect(await page.isVisible('svg.tree')).toBe(true);
      await page.screenshot({ path: screenshotPath('workbench', 'document'), fullPage: true });

      const history = (await api(`/api/history?stream=sale-${sale.id}`)).data as unknown[];
      await page.click('summary:has-text("As the API shows it")');
      expect(await page.$$eval('table.history tbody tr', (rows) => rows.length)).toBe(history.length);
      expect(await page.textContent('table.history')).toContain('DocumentRecorded');

      await Promise.all([page.waitForURL('**/audit/statement?**'), page.click('a:has-text("statement for")')]);
      const query = new URL(page.url()).searchParams;
      const statement = (await api(`/api/audit/statement?${query}`)).data as { closing: number; lines: unknown[] };
      expect(Number(await page.getAttribute('[data-closing]', 'data-closing'))).toBe(statement.closing);
      expect(await page.$$eval('table.statement tbody tr', (rows) => rows.length)).toBe(statement.lines.length + 2);
      await page.screenshot({ path: screenshotPath('workbench', 'statement'), fullPage: true });

      // Up to today the closing balance is the contractor's balance as the API gives it.
      const contractor = query.get('contractor')!;
      const today = new Date(Date.now() + 3 * 3600_000).toISOString().slice(0, 10);
      await page.fill('input[name=dateFrom]', '2000-01-01');
      await page.fill('input[name=dateTo]', today);
      await Promise.all([page.waitForURL(`**dateTo=${today}`), page.click('form.search button')]);
      const { data: { balance } } = (await (await fetch(`${server.url}/api/contractor`, { method: 'POST', headers: { Authorization: `Bearer ${auditKey}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ id: Number(contractor) }) })).json()) as { data: { balance: number } };
      expect(Number(await page.getAttribute('[data-closing]', 'data-closing'))).toBe(balance);
      expect(await page.getAttribute('[data-reconciled]', 'data-reconciled')).toBe('1');

      await page.click('header a:has-text("Event log")');
      expect(await page.getAttribute('[data-chain]', 'data-chain')).toBe('ok');
      await page.screenshot({ path: screenshotPath('workbench', 'log') });

      expect(outside).toEqual([]);
      expect(problems).toEqual([]);
      // What the browser saw, for the record of the run.
      console.log(
        `sale ${sale.id}: tree nodes ${nodes.join(', ')} (sale-${sale.id} marked), ${history.length} history rows; ` +
          `contractor ${contractor}: ${query.get('dateFrom')}..${query.get('dateTo')} closing ${statement.closing} (${statement.lines.length} lines), ` +
          `2000-01-01..${today} closing ${balance} = balance ${balance}; screenshots in test-results/workbench/`,
      );
    } finally {
      await browser.close();
      await server.stop();
    }
  },
);
