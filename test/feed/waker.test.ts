import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { Company } from '../../src/company.ts';
import { LogWaker } from '../../src/feed/waker.ts';
import { ChangeStreams } from '../../src/feed/streams.ts';
import { listen, readServerSettings } from '../../src/http/node-server.ts';
import { ApiClient, tempDir } from '../helpers.ts';
import { runCli } from '../server-process.ts';
import { REAL_SERVER_URL, databaseEachTest } from '../storage/postgres/engines.ts';
import { within } from '../within.ts';
import { follow } from './sse-client.ts';

describe('the one waker of a server', () => {
  test("one read of the log's end wakes every waiter it moved past; the others wait on", async () => {
    let end = 5;
    let reads = 0;
    const waker = new LogWaker(async () => (reads++, end), { pollMs: 60_000 });
    // No engine word: it polls, but not within this test's time.
    const mark = waker.mark;
    const waiters = Array.from({ length: 100 }, () => waker.wait(5, mark, 10_000));
    const later = waker.wait(6, mark, 300);
    end = 6;
    waker.moved();
    expect(await Promise.all(waiters)).toEqual(Array(100).fill(true));
    expect(reads).toBe(1);
    expect(await later).toBe(false);
  });

  test('a signal between reading a page and waiting is not lost: the mark taken before says so', async () => {
    let end = 1;
    const waker = new LogWaker(async () => end, { pollMs: 60_000 });
    const mark = waker.mark;
    // The page read here saw the end at 1; then a commit, its signal arriving before anyone waits.
    end = 2;
    waker.moved();
    expect(await waker.wait(1, mark, 5000)).toBe(true);
    // Taken after the signal, the mark lets a waiter sleep until the next one.
    expect(await waker.wait(2, waker.mark, 200)).toBe(false);
  });

  test('stopping answers every waiter at once; an aborted waiter answers false', async () => {
    const waker = new LogWaker(async () => 0, { pollMs: 60_000 });
    const controller = new AbortController();
    const aborted = waker.wait(0, waker.mark, 60_000, controller.signal);
    controller.abort();
    expect(await aborted).toBe(false);
    const waiting = waker.wait(0, waker.mark, 60_000);
    await waker.stop();
    expect(await waiting).toBe(false);
  });
});

describe('SQLite: a change committed by another process wakes a long-poll', () => {
  test('tradebook import into the served file answers a waiting long-poll within 250 ms of its commit', async () => {
    const file = path.join(tempDir(), 'shop.db');
    const tb = await Company.open({ engine: 'sqlite', file });
    try {
      const api = new ApiClient(createApp(tb), (await tb.keys.create({ name: 'shop' })).key);
      const polling = api.get('/api/changes?wait=60').then((res) => ({ res, at: Date.now() }));
      const lines = path.join(path.dirname(file), 'lines.ndjson');
      fs.writeFileSync(lines, `${JSON.stringify({ type: 'product_brand', data: { name: 'Дуб' } })}\n`);
      const imported = await runCli(file, ['import', lines]);
      expect(imported.status, imported.stderr).toBe(0);
      const exitedAt = Date.now();
      const { res, at } = await polling;
      expect(res.body.data.map((c: { type: string }) => c.type)).toEqual(['BrandAdded']);
      // The import committed before it exited: the long-poll was answered no later than 250 ms after that.
      expect(at - exitedAt).toBeLessThan(250);
    } finally {
      await tb.close();
    }
  });
});

describe.runIf(REAL_SERVER_URL)('PostgreSQL: servers on one database wake each other', () => {
  const database = databaseEachTest();

  const server = async (said: string[] = []) => {
    const tb = await Company.open({ engine: 'postgres', url: database.url() }, { feed: { onState: (line) => said.push(line) } });
    database.afterward(() => tb.close());
    return { tb, app: createApp(tb), said };
  };

  test('written through one server, a long-poll on the other is answered within 1 s; its listening connection ended meanwhile, nothing is missed', async () => {
    const one = await server();
    const two = await server();
    const key = (await one.tb.keys.create({ name: 'shop' })).key;
    const [writer, follower] = [new ApiClient(one.app, key), new ApiClient(two.app, key)];
    // The follower's server starts listening with its first follower.
    expect((await follower.get('/api/changes')).body.meta.count).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 300));

    const polling = follower.get('/api/changes?wait=30').then((res) => ({ res, at: performance.now() }));
    expect((await writer.write('/api/add-product-brand', 'brand', [{ name: 'Дуб' }])).status).toBe(200);
    // From the write's answer (its commit came before it) to the long-poll's.
    const writtenAt = performance.now();
    const { res, at } = await polling;
    expect(res.body.data.map((c: { seq: number }) => c.seq)).toEqual([1]);
    expect(at - writtenAt).toBeLessThan(1000);

    const ended = await database.terminate('tradebook notifications');
    // Only the follower's server listens: the other has no follower and no key cache.
    expect(ended).toEqual([{ ended: true }]);
    const lost = follower.get('/api/changes?after=1&wait=30');
    expect((await writer.write('/api/add-product-brand', 'brand', [{ name: 'Бук' }])).status).toBe(200);
    expect((await lost).body.data.map((c: { seq: number }) => c.seq)).toEqual([2]);
    expect(two.said[0]).toMatch(/^change feed: the connection listening for the log's commits closed; followers are woken by polling/);
  });

  test('a stream on one server delivers what is written through the other within 1 s; its listening connection ended, nothing is missed', async () => {
    const one = await server();
    const two = await server();
    const key = (await one.tb.keys.create({ name: 'shop' })).key;
    const writer = new ApiClient(one.app, key);
    const read = readServerSettings({ PORT: '0', TRADEBOOK_HOST: '127.0.0.1' });
    if (!read.ok) throw new Error(read.problem);
    const streams = new ChangeStreams();
    const served = await new Promise<http.Server>((resolve, reject) => {
      const s: http.Server = listen(createApp(two.tb, { streams }).fetch, read.settings, () => resolve(s), reject);
    });
    const follower = follow(`http://127.0.0.1:${(served.address() as AddressInfo).port}/api/changes`, key);
    try {
      await within(5000, () => follower.opened === 1);
      for (let round = 0; round < 3; round++) {
        // From the write's answer (its commit came before it) to the change on the other server's stream.
        expect((await writer.write('/api/add-product-brand', 'brand', [{ name: `Бренд ${round}` }])).status).toBe(200);
        expect(await within(1000, () => follower.seqs.length === round + 1)).toBeLessThan(1000);
      }
      const ended = await database.terminate('tradebook notifications');
      expect(ended).toEqual([{ ended: true }]);
      for (let i = 0; i < 10; i++) expect((await writer.write('/api/add-product-brand', 'brand', [{ name: `Потом ${i}` }])).status).toBe(200);
      await within(10_000, () => follower.seqs.length === 13);
      expect(follower.seqs).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
    } finally {
      follower.close();
      streams.endAll();
      served.closeAllConnections();
      await new Promise((resolve) => served.close(resolve));
    }
  });
});
