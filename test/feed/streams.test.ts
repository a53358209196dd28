import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type http from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { listen, readServerSettings } from '../../src/http/node-server.ts';
import { Company } from '../../src/company.ts';
import { ChangeStreams, STREAM_DEFAULTS, type StreamSettings } from '../../src/feed/streams.ts';
import { ApiClient, tempDir } from '../helpers.ts';
import { importRecords, line } from '../documents-fixtures.ts';
import { runCli, startServer } from '../server-process.ts';
import { within } from '../within.ts';
import { follow } from './sse-client.ts';

/** The whole server stack in this process (Node's server, the app, the streams) on a free port. */
async function served(settings: Partial<StreamSettings> = {}) {
  const tb = await Company.open({ engine: 'sqlite', file: path.join(tempDir(), 'shop.db') });
  const streams = new ChangeStreams({ ...STREAM_DEFAULTS, ...settings });
  const app = createApp(tb, { streams });
  const { key } = await tb.keys.create({ name: 'shop' });
  const read = readServerSettings({ PORT: '0', TRADEBOOK_HOST: '127.0.0.1' });
  if (!read.ok) throw new Error(read.problem);
  const server = await new Promise<http.Server>((resolve, reject) => {
    const s: http.Server = listen(app.fetch, read.settings, () => resolve(s), reject);
  });
  const port = (server.address() as net.AddressInfo).port;
  const service = { tb, app, streams, key, api: new ApiClient(app, key), url: `http://127.0.0.1:${port}/api/changes`, port };
  cleanups.push(async () => {
    streams.endAll();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await tb.close();
  });
  return service;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const brands = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ name: `Бренд ${from + i}` }));

/** Reads a stream's raw text with fetch until `until` holds of it. */
async function rawStream(url: string, key: string, until: (text: string) => boolean, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers: { Accept: 'text/event-stream', Authorization: `Bearer ${key}`, ...headers } });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!until(text)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return { res, text };
}

describe('server-sent events on /api/changes', () => {
  test('id is the seq, event the type, data the change; a follower resumes after its Last-Event-ID', async () => {
    const { api, key, url } = await served();
    expect((await api.write('/api/add-product-brand', 'brand', brands(1, 3))).status).toBe(200);
    const { res, text } = await rawStream(url, key, (t) => t.includes('id: 3\n'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(text).toMatch(/^retry: \d+\n\n/);
    const first = text.split('\n\n')[1];
    expect(first.split('\n').slice(0, 2)).toEqual(['id: 1', 'event: BrandAdded']);
    expect(JSON.parse(first.split('\n')[2].slice('data: '.length))).toEqual({ seq: 1, type: 'BrandAdded', record: { kind: 'brand', id: 1 }, recordedAt: expect.any(String), data: { id: 1, name: 'Бренд 1', logo: null } });

    const follower = follow(url, key, { 'Last-Event-ID': '2' });
    await within(5000, () => follower.seqs.length === 1);
    expect((await api.write('/api/add-product-brand', 'brand', brands(4, 2))).status).toBe(200);
    await within(5000, () => follower.seqs.length === 3);
    follower.close();
    expect(follower.seqs).toEqual([3, 4, 5]);
    expect(follower.changes.map((c) => c.type)).toEqual(['BrandAdded', 'BrandAdded', 'BrandAdded']);
  });

  test('served without Node (app.request), a stream answers the same events through hono', async () => {
    const { api, app, key } = await served();
    expect((await api.write('/api/add-product-brand', 'brand', brands(1, 2))).status).toBe(200);
    const res = await app.request('/api/changes?after=1', { headers: { Accept: 'text/event-stream', Authorization: `Bearer ${key}` } });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('id: 2\n')) text += decoder.decode((await reader.read()).value, { stream: true });
    await reader.cancel();
    expect(text).toMatch(/^retry: \d+\n\nid: 2\nevent: BrandAdded\ndata: \{"seq":2,/);
  });

  test('types filters a stream; an idle stream gets a comment every heartbeat', async () => {
    const { api, key, url } = await served({ heartbeatMs: 200 });
    expect((await api.write('/api/add-product-brand', 'brand', brands(1, 1))).status).toBe(200);
    expect((await api.write('/api/add-product-category', 'category', [{ name: 'Мебель' }])).status).toBe(200);
    const { text } = await rawStream(`${url}?types=category`, key, (t) => (t.match(/: still here\n\n/g) ?? []).length >= 2);
    expect(text.match(/^id: .*/gm)).toEqual(['id: 2']);
  });

  test('idle streams read nothing: their heartbeats come from one timer, not from waits that time out and read the log again', async () => {
    const { key, url, tb } = await served({ heartbeatMs: 200, perKey: 30 });
    const session = tb.engine.readOn;
    let reads = 0;
    for (const method of ['value', 'objects', 'rows'] as const) {
      const read = session[method].bind(session) as (...args: unknown[]) => unknown;
      (session as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => (reads++, read(...args));
    }
    const idle = Array.from({ length: 20 }, () => follow(url, key));
    await within(5000, () => idle.every((f) => f.opened === 1));
    await new Promise((resolve) => setTimeout(resolve, 100));
    reads = 0;
    const { text } = await rawStream(`${url}?after=0`, key, (t) => (t.match(/: still here\n\n/g) ?? []).length >= 3);
    idle.forEach((f) => f.close());
    // The one stream opened meanwhile read its first page (the head, then nothing after it), then only waited.
    expect(reads).toBeLessThanOrEqual(2);
    expect(text.match(/^id: .*/gm)).toBeNull();
  });

  test('bounded per key and in all: one more is refused 429 ERROR_TOO_MANY_STREAMS; a bad Last-Event-ID is 400', async () => {
    const { key, url, streams, tb } = await served({ perKey: 2, total: 3 });
    const open = [follow(url, key), follow(url, key)];
    await within(5000, () => open.every((f) => f.opened === 1));
    const refused = await fetch(url, { headers: { Accept: 'text/event-stream', Authorization: `Bearer ${key}` } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect((await refused.json()).errors[0]).toEqual({ code: 'ERROR_TOO_MANY_STREAMS', message: 'this key has 2 streams open already; close one or try again later' });
    const other = (await tb.keys.create({ name: 'other' })).key;
    open.push(follow(url, other));
    await within(5000, () => streams.count === 3);
    const full = await fetch(url, { headers: { Accept: 'text/event-stream', Authorization: `Bearer ${other}` } });
    expect((await full.json()).errors[0].message).toMatch(/^the server has 3 streams open already/);
    for (const f of open) f.close();
    await within(5000, () => streams.count === 0);
    const bad = await fetch(url, { headers: { Accept: 'text/event-stream', Authorization: `Bearer ${key}`, 'Last-Event-ID': 'x' } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).errors[0].code).toBe('ERROR_LAST_EVENT_ID');
  });

  test('a reader too slow to keep up is cut off, the server holding no backlog for it', async () => {
    const { tb, key, port, streams } = await served({ stallMs: 500, bufferBytes: 256 * 1024 });
    // Never read until cut off: the kernel's buffers fill, then the server's side of the connection.
    const socket = net.connect(port, '127.0.0.1');
    socket.pause();
    socket.write(`GET /api/changes HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    let received = 0;
    socket.on('data', (chunk) => (received += chunk.length));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.on('error', () => {});
    await within(5000, () => streams.count === 1);
    const products = Array.from({ length: 10_000 }, (_, i) => line('product', { name: `Товар ${i}`, sku: `S${i}`, categoryId: 0, additionalFields: Array.from({ length: 12 }, (_, f) => ({ name: `поле ${f}`, value: 'x'.repeat(250) })) }));
    expect((await importRecords(tb, products)).failures).toEqual([]);
    await within(20_000, () => streams.count === 0);
    socket.resume();
    await closed;
    // The log holds over 30 MB of changes: the server cut the connection rather than keep them for it.
    expect(received).toBeLessThan((10_000 * 3000) / 2);
    // An import of 30 MB: minutes on a loaded machine.
  }, 180_000);

  test('shutdown ends every stream with a retry hint, and refuses new ones', async () => {
    const { key, url, streams } = await served();
    const reading = rawStream(url, key, (t) => t.includes('shutting down'));
    await within(5000, () => streams.count === 1);
    streams.endAll();
    const { text } = await reading;
    expect(text).toMatch(/retry: \d+\n: the server is shutting down; reconnect with Last-Event-ID\n\n$/);
    await within(5000, () => streams.count === 0);
  });
});

describe('a long-poll on Node\'s server', () => {
  test('one whose client goes away stops waiting at once, not at its timeout', async () => {
    const { tb, key, url } = await served();
    const going = new AbortController();
    const polling = fetch(`${url}?wait=60`, { headers: { Authorization: `Bearer ${key}` }, signal: going.signal }).catch(() => 'gone');
    await within(5000, () => tb.waker.waiting);
    going.abort();
    expect(await polling).toBe('gone');
    await within(5000, () => !tb.waker.waiting);
  });
});

describe('a follower of a real server', () => {
  const stopped: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const stop of stopped.splice(0)) await stop();
  });

  test('four writers and an import meanwhile, the server killed and started again: every seq once, in order, once duplicates are dropped', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'shop.db');
    const key = 'tb_follow_the_log_key_0123456789abcdef';
    let server = await startServer(file, key, { TRADEBOOK_ACCESS_LOG: 'off' });
    stopped.push(() => server.stop('SIGKILL'));
    const follower = follow(`${server.url}/api/changes`, key);
    stopped.push(async () => follower.close());
    await within(10_000, () => follower.opened === 1);

    const client = (base: string) => ({
      async write(records: unknown[]) {
        const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
        const token = (await (await fetch(`${base}/api/add-product-brand`, { headers })).json()).data.access_token;
        const res = await fetch(`${base}/api/add-product-brand`, { method: 'POST', headers: { ...headers, 'X-Access-Token': token }, body: JSON.stringify({ brand: records }) });
        return res.status;
      },
    });
    const lines = path.join(dir, 'lines.ndjson');
    fs.writeFileSync(lines, Array.from({ length: 2000 }, (_, i) => JSON.stringify({ type: 'product_category', data: { name: `Категория ${i}` } })).join('\n'));
    const writers = (base: string, rounds: number, from: number) =>
      Array.from({ length: 4 }, async (_, w) => {
        for (let round = 0; round < rounds; round++) await client(base).write(brands(from + w * 1000 + round * 10, 10)).catch(() => 0);
      });
    await Promise.all([...writers(server.url, 10, 0), runCli(file, ['import', lines])]);
    await within(20_000, async () => follower.distinct().at(-1) === (await visibleSeqs(file)).at(-1));

    // Killed mid-stream; started again on the same port: the follower reconnects by itself with its Last-Event-ID.
    const port = server.port;
    await server.stop('SIGKILL');
    server = await startServer(file, key, { TRADEBOOK_ACCESS_LOG: 'off', PORT: String(port) });
    await Promise.all(writers(server.url, 5, 100_000));
    const visible = await visibleSeqs(file);
    await within(30_000, () => follower.distinct().at(-1) === visible.at(-1));
    expect(follower.distinct()).toEqual(visible);
    expect(follower.opened).toBeGreaterThanOrEqual(2);

    // A stream open does not hold up a graceful shutdown.
    expect(await server.stop('SIGTERM')).toBe(0);
  });
});

/** The seqs an api key follows in the file's log: every one but the import runs' own records (an auditor's). */
async function visibleSeqs(file: string): Promise<number[]> {
  const tb = await Company.open({ engine: 'sqlite', file });
  try {
    const rows = await tb.audit.eventsAfter(0, 1_000_000);
    return rows.filter((row) => row.type !== 'ImportRunRecorded').map((row) => row.seq);
  } finally {
    await tb.close();
  }
}
