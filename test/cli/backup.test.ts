import fs from 'node:fs';
import path from 'node:path';
import { expect, test, vi } from 'vitest';
import { tempDir } from '../helpers.ts';
import { runCli, startServer } from '../server-process.ts';

vi.setConfig({ testTimeout: 120_000 });

const KEY = 'tb_backup_test_key_0123456789abcdef';

test('tradebook backup copies a live database while its server keeps writing: the copy verifies and its log is a prefix of the live one', async () => {
  const dir = tempDir();
  const live = path.join(dir, 'live.db');
  const copy = path.join(dir, 'backup.db');
  const server = await startServer(live, KEY);
  const headers = { Authorization: `Bearer ${KEY}` };
  let writing = true;
  let written = 0;
  const writer = (async () => {
    while (writing) {
      const token = ((await (await fetch(`${server.url}/api/add-product-brand`, { headers })).json()) as { data: { access_token: string } }).data.access_token;
      const brands = Array.from({ length: 20 }, (_, i) => ({ name: `Бренд ${written}-${i}` }));
      const res = await fetch(`${server.url}/api/add-product-brand`, { method: 'POST', headers: { ...headers, 'X-Access-Token': token }, body: JSON.stringify({ brand: brands }) });
      expect(res.status).toBe(200);
      written++;
    }
  })();
  try {
    while (written < 5) await new Promise((resolve) => setTimeout(resolve, 20));
    const run = await runCli(live, ['backup', copy, '--json']);
    expect([run.status, run.stderr]).toEqual([0, '']);
    expect(JSON.parse(run.stdout)).toMatchObject({ into: copy, pages: expect.any(Number), bytes: fs.statSync(copy).size });
    const before = written;
    while (written < before + 3) await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    writing = false;
    await writer;
    await server.stop();
  }
  const verified = await runCli(copy, ['verify']);
  expect([verified.status, verified.stdout]).toEqual([0, expect.stringMatching(/^verify: OK: hash chain of \d+ events intact/)]);
  const lines = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l) as { seq: number; hash: string });
  const copied = lines((await runCli(copy, ['events'])).stdout);
  const all = lines((await runCli(live, ['events'])).stdout);
  expect(copied.length).toBeGreaterThan(0);
  // Writes went on after the copy was made: the copy holds a prefix of the live log, hash for hash.
  expect(all.length).toBeGreaterThan(copied.length);
  expect(all.slice(0, copied.length)).toEqual(copied);

  const again = await runCli(live, ['backup', copy]);
  expect([again.status, again.stderr]).toEqual([2, `tradebook: ${copy} exists; a backup is only written to a new file\n`]);
  const nowhere = await runCli(path.join(dir, 'missing.db'), ['backup', path.join(dir, 'other.db')]);
  expect(nowhere.status).toBe(2);
  expect(fs.existsSync(path.join(dir, 'other.db'))).toBe(false);
});
