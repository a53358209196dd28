import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ANCHOR_LIMITS, anchorKeyFrom, newAnchorKey, signAnchor } from '../../src/audit/anchors.ts';
import { romashka } from '../documents-fixtures.ts';
import { tempDir } from '../helpers.ts';
import { type ServerProcess, runCli, startServer } from '../server-process.ts';
import { signInOver } from '../workbench-client.ts';

/**
 * No answer holds the server: while the heaviest reads of the workbench and the audit API run (2,000 anchors, a
 * page deep in a contractor's 30,000 documents, a record edited 5,000 times, the newest log page), `/healthz`
 * answers within 100 ms, on the real server.
 */

const KEY = 'tb_heavy_answers_test_key_0123456789';
const DOCUMENTS = 30_000;
const EDITS = 5_000;

let server: ServerProcess;
let auditKey: string;

beforeAll(async () => {
  const file = path.join(tempDir(), 'heavy.db');
  auditKey = JSON.parse((await runCli(file, ['keys', 'create', '--name', 'auditor', '--scope', 'audit', '--json'])).stdout).key;
  const lines = [
    { type: 'contractor', data: romashka },
    { type: 'contractor', data: { ...romashka, id: 8, name: 'ООО Правка' } },
    ...Array.from({ length: EDITS }, (_, i) => ({ type: 'contractor', data: { ...romashka, id: 8, name: 'ООО Правка', legalAddress: `Москва, ул. Правки, ${i + 1}` } })),
    ...Array.from({ length: DOCUMENTS }, (_, i) => ({
      type: 'paymentin',
      data: { id: ((i * 7_919) % DOCUMENTS) + 1, date: new Date(Date.UTC(2020, 0, 1) + (i % 1_500) * 86_400_000).toISOString().slice(0, 10), status: 1, contractor: { id: 7 }, sum: 100, basedOn: [] },
    })),
  ];
  const ndjson = path.join(tempDir(), 'heavy.ndjson');
  fs.writeFileSync(ndjson, lines.map((l) => JSON.stringify(l)).join('\n'));
  const imported = await runCli(file, ['import', ndjson, '--json']);
  expect(JSON.parse(imported.stdout)).toMatchObject({ failed: 0 });
  server = await startServer(file, KEY);
}, 600_000);
afterAll(() => server?.stop());

/** How long `/healthz` takes, asked every 25 ms while `work` runs. */
async function healthzDuring(work: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  let working = true;
  const probing = (async () => {
    while (working) {
      const started = performance.now();
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      times.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  try {
    await work();
  } finally {
    working = false;
    await probing;
  }
  return times;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

describe('/healthz while the heavy reads run', () => {
  test('answers within 100 ms (the median of its probes), whatever the workbench and the audit API are asked', async () => {
    const { cookie } = await signInOver(server.url, auditKey);
    const get = async (url: string) => {
      const res = await fetch(server.url + url, { headers: { Cookie: cookie, Authorization: url.startsWith('/api/') ? `Bearer ${auditKey}` : '' } });
      const text = await res.text();
      expect(res.status, url).toBe(200);
      return text;
    };
    const form = await get('/audit/anchors');
    const token = /name="form" value="([^"]+)"/.exec(form)![1];
    const lastSeq = Number(/<tr data-seq="(\d+)"/.exec(await get('/audit/log'))![1]);
    const [last] = JSON.parse(await get(`/api/events?after=${lastSeq - 1}&limit=1`)).data as { seq: number; hash: string; recordedAt: string }[];
    const key = anchorKeyFrom(newAnchorKey())!;
    const anchors = Array.from({ length: ANCHOR_LIMITS.count }, (_, i) => JSON.stringify(signAnchor(last, key, new Date(Date.UTC(2020, 0, 1) + i * 86_400_000)))).join('\n');
    const checkAnchors = async () => {
      const res = await fetch(`${server.url}/audit/anchors`, { method: 'POST', headers: { Cookie: cookie, Origin: server.url }, body: new URLSearchParams({ form: token, anchors }) });
      expect(await res.text()).toContain(`All ${ANCHOR_LIMITS.count} anchors hold.`);
    };
    const deepCursor = /<a href="\/audit\/document\/([a-z]+)\/(\d+)">/.exec(await get('/audit/documents?contractor=7'))!;
    const heavy: [string, () => Promise<unknown>][] = [
      ['anchors', checkAnchors],
      ['documents', () => get(`/audit/documents?contractor=7&after=${deepCursor[1]}-${deepCursor[2]}`)],
      ['contractor page', () => get('/audit/contractor/8')],
      ['an old page of its history', () => get('/audit/contractor/8?history=120')],
      ['the record as of a moment', () => get('/audit/record?stream=contractor-8&at=2020-01-01')],
      ['its log', () => get('/audit/log?stream=contractor-8')],
      ['the newest log page', () => get('/audit/log')],
      ['its history over the API', () => get(`/api/history?stream=contractor-8&after=${EDITS - 100}`)],
    ];
    // Each read by two clients at once, twice, /healthz probed meanwhile.
    const probes: number[] = [];
    const seen: string[] = [];
    for (const [name, read] of heavy) {
      const started = performance.now();
      const during = await healthzDuring(() => Promise.all([0, 1].map(async () => { await read(); await read(); })));
      probes.push(...during);
      seen.push(`${name} ${(performance.now() - started).toFixed(0)} ms (healthz median ${median(during).toFixed(0)}, slowest ${Math.max(...during).toFixed(0)} ms)`);
    }
    console.log(`/healthz during the heavy reads: ${probes.length} probes, median ${median(probes).toFixed(1)} ms, slowest ${Math.max(...probes).toFixed(1)} ms; ${seen.join('; ')}`);
    expect(probes.length).toBeGreaterThan(10);
    expect(median(probes)).toBeLessThan(100);
  }, 300_000);
});
