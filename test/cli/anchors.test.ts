import fs from 'node:fs';
import path from 'node:path';
import { expect, test, vi } from 'vitest';
import { tempDir, testService } from '../helpers.ts';
import { runCliHere } from '../cli-in-process.ts';
import { runCli } from '../server-process.ts';
import { rewriteHistory } from '../storage/sqlite/at-rest.ts';

// The rebuild runs as a process (a few seconds on a busy machine); the other commands in this process.
vi.setConfig({ testTimeout: 120_000 });

test('anchors hold the operator to the log: after history below an anchor is rewritten and rebuilt, verify passes and verify --anchor fails, naming the anchor', async () => {
  const { api, file, tb } = await testService();
  const dir = tempDir();
  const key = path.join(dir, 'anchor.pem');
  const anchors = path.join(dir, 'anchors.ndjson');

  const made = await runCliHere(file, ['anchor-key', key]);
  expect([made.status, made.stderr]).toEqual([0, '']);
  expect(made.stdout).toMatch(/^wrote an anchor key to .*anchor\.pem; its public key's fingerprint is [0-9a-f]{16}\n$/);
  expect(fs.statSync(key).mode & 0o777).toBe(0o600);
  const again = await runCliHere(file, ['anchor-key', key]);
  expect([again.status, again.stderr]).toEqual([2, `tradebook: cannot create ${key}: it exists already\n`]);

  expect((await api.write('/api/add-product-brand', 'brand', [{ name: 'Первый' }, { name: 'Второй' }])).status).toBe(200);
  const first = await runCliHere(file, ['anchor', '--key', key]);
  expect(first.status).toBe(0);
  expect(JSON.parse(first.stdout)).toMatchObject({ seq: 2, hash: (await tb.audit.eventsAfter(1, 1))[0].hash });
  expect((await api.write('/api/add-product-brand', 'brand', [{ name: 'Третий' }])).status).toBe(200);
  const second = await runCliHere(file, ['anchor', '--key', key]);
  fs.writeFileSync(anchors, first.stdout + second.stdout);

  const holding = await runCliHere(file, ['verify', '--anchor', anchors]);
  expect(holding.status).toBe(0);
  expect(holding.stdout).toMatch(/^verify: OK: .*; 2 of 2 anchors hold\n$/);

  // The operator renames the first brand in the log itself, recomputes the chain and rebuilds the read tables.
  rewriteHistory(file, 1, (data) => data.replace('Первый', 'Подменённый'));
  expect((await runCli(file, ['rebuild'])).status).toBe(0);
  const alone = await runCliHere(file, ['verify']);
  expect([alone.status, alone.stdout]).toEqual([0, expect.stringMatching(/^verify: OK: hash chain of 3 events intact/)]);

  const anchored = await runCliHere(file, ['verify', '--anchor', anchors]);
  expect(anchored.status).toBe(1);
  expect(anchored.stdout).toMatch(/^verify: FAILED: hash chain of 3 events intact; .*; 0 of 2 anchors hold\n$/);
  const reported = anchored.stderr.trim().split('\n');
  expect(reported).toEqual([
    expect.stringMatching(/^anchor of seq 2 \(key [0-9a-f]{16}, anchored .*\): FAILED: the log's event 2 has hash [0-9a-f]{64}, the anchor says [0-9a-f]{64}: the log was rewritten at or below seq 2$/),
    expect.stringMatching(/^anchor of seq 3 \(key [0-9a-f]{16}, anchored .*\): FAILED: /),
  ]);
});

test('a forged or malformed anchor is named: a changed field fails its signature, a file without anchors is a usage error', async () => {
  const { api, file } = await testService();
  const dir = tempDir();
  const key = path.join(dir, 'anchor.pem');
  expect((await runCliHere(file, ['anchor-key', key])).status).toBe(0);
  expect((await api.write('/api/add-product-brand', 'brand', [{ name: 'Бренд' }])).status).toBe(200);
  const anchor = JSON.parse((await runCliHere(file, ['anchor', '--key', key])).stdout);
  const forged = path.join(dir, 'forged.ndjson');
  fs.writeFileSync(forged, `${JSON.stringify({ ...anchor, seq: 1, anchoredAt: '2020-01-01T00:00:00.000Z' })}\n`);
  const run = await runCliHere(file, ['verify', '--anchor', forged]);
  expect(run.status).toBe(1);
  expect(run.stderr).toMatch(/^anchor of seq 1 .*: FAILED: its signature does not match its contents and public key\n$/);

  const junk = path.join(dir, 'junk.ndjson');
  fs.writeFileSync(junk, '{"seq":1}\n');
  expect(await runCliHere(file, ['verify', '--anchor', junk])).toMatchObject({ status: 2, stderr: `tradebook: ${junk}: line 1 is not an anchor (seq, hash, recordedAt, anchoredAt, publicKey, signature)\n` });
  expect(await runCliHere(file, ['anchor', '--key', junk])).toMatchObject({ status: 2, stderr: `tradebook: ${junk} is not an Ed25519 private key (PEM)\n` });
});
