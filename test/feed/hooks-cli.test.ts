import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { tempDir } from '../helpers.ts';
import { runCliHere as cli } from '../cli-in-process.ts';
import { startServer } from '../server-process.ts';
import { within } from '../within.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('tradebook hooks', () => {
  test('add prints the secret once; list and status never show it; pause, resume and remove change it', async () => {
    const db = path.join(tempDir(), 't.db');
    const added = await cli(db, ['hooks', 'add', 'https://shop.example/hooks/tradebook', '--types', 'product, contractor']);
    expect(added.status, added.stderr).toBe(0);
    const secret = added.stdout.trim().split('\n').pop()!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(added.stdout).toContain('added hook 1: https://shop.example/hooks/tradebook, the changes after seq 0 of product,contractor');

    const listed = await cli(db, ['hooks', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: 1, url: 'https://shop.example/hooks/tradebook', types: 'product,contractor', state: 'active', position: 0, behind: 0 })]);
    const status = await cli(db, ['hooks', 'status', '1']);
    expect(status.stdout).toContain('state: active\n');
    for (const shown of [listed.stdout, (await cli(db, ['hooks', 'list'])).stdout, status.stdout]) expect(shown).not.toContain(secret.slice(6));

    expect((await cli(db, ['hooks', 'pause', '1'])).stdout).toBe('paused hook 1\n');
    expect(JSON.parse((await cli(db, ['hooks', 'status', '1', '--json'])).stdout)).toMatchObject({ state: 'paused', paused: 'paused by hand' });
    expect((await cli(db, ['hooks', 'resume', '1'])).stdout).toBe('resumed hook 1\n');
    expect(JSON.parse((await cli(db, ['hooks', 'status', '1', '--json'])).stdout)).toMatchObject({ state: 'active', paused: null });
    expect((await cli(db, ['hooks', 'remove', '1'])).stdout).toBe('removed hook 1\n');
    expect(JSON.parse((await cli(db, ['hooks', 'list', '--json'])).stdout)).toEqual([]);
  });

  test('a bad URL, type or id is one line and exit 2', async () => {
    const db = path.join(tempDir(), 't.db');
    for (const [args, said] of [
      [['hooks', 'add', 'ftp://shop.example/x'], 'tradebook: a webhook URL is http or https, not ftp\n'],
      [['hooks', 'add', 'not a url'], 'tradebook: "not a url" is not a URL\n'],
      [['hooks', 'add', 'https://user:pw@shop.example/'], 'tradebook: a webhook URL carries no user name or password\n'],
      [['hooks', 'add', 'https://shop.example/', '--types', 'Products'], 'tradebook: --types: "Products" is neither an event type nor a record kind\n'],
      [['hooks', 'status', '9'], 'tradebook: no hook 9\n'],
      [['hooks', 'pause', 'x'], 'tradebook: id must be a whole number, got x\n'],
    ] as const) {
      const run = await cli(db, [...args]);
      expect([args, run.status, run.stderr]).toEqual([args, 2, said]);
    }
  });

  test('a running server delivers to a hook added by the command line, signed with the secret it printed', async () => {
    const db = path.join(tempDir(), 't.db');
    const received: { headers: Record<string, string>; body: string }[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (chunk) => (body += chunk));
      req.on('end', () => (received.push({ headers: req.headers as Record<string, string>, body }), res.writeHead(204).end()));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => (receiver.closeAllConnections(), receiver.close(resolve))));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const secret = (await cli(db, ['hooks', 'add', url])).stdout.trim().split('\n').pop()!;

    const key = 'tb_hooks_cli_test_key_0123456789abcdef01';
    const server = await startServer(db, key, { TRADEBOOK_WEBHOOK_PRIVATE_ADDRESSES: 'on', TRADEBOOK_ACCESS_LOG: 'off' });
    cleanups.push(() => server.stop());
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const token = (await (await fetch(`${server.url}/api/add-product-brand`, { headers })).json()).data.access_token;
    const written = await fetch(`${server.url}/api/add-product-brand`, { method: 'POST', headers: { ...headers, 'X-Access-Token': token }, body: JSON.stringify({ brand: [{ name: 'Дуб' }] }) });
    expect(written.status).toBe(200);
    await within(5000, () => received.length === 1);
    expect(new Webhook(secret).verify(received[0].body, received[0].headers)).toMatchObject({ data: [{ seq: 1, type: 'BrandAdded', record: { kind: 'brand', id: 1 } }] });
    await within(5000, async () => JSON.parse((await cli(db, ['hooks', 'status', '1', '--json'])).stdout).position === 1);
    expect(await server.stop()).toBe(0);
  });
});
