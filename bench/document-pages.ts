/**
 * First page against last page of a one-month-filtered document list, on the database at TRADEBOOK_DB
 * (seed one with `tradebook seed --demo --documents 200000`). Run: node --import tsx bench/document-pages.ts
 * Prints the median time per request through the HTTP app and the query plans used.
 */
import { createApp } from '../src/http/app.ts';
import { Company, releaseReadModels } from '../src/company.ts';
import { SqliteEngine } from '../src/storage/sqlite/engine.ts';

const engine = await SqliteEngine.open(process.env.TRADEBOOK_DB || 'data/tradebook.db', releaseReadModels);
const tb = await Company.over(engine);
const { key } = await tb.keys.create({ name: 'bench' });
const app = createApp(tb);
const month = { from: '2026-03-01', to: '2026-03-31' };

async function median(url: string, runs = 200): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    const res = await app.request(url, { headers: { Authorization: `Bearer ${key}` } });
    await res.text();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

for (const path of ['/api/sales', '/api/customerorders', '/api/paymentins']) {
  for (const status of ['', '&status=1']) {
    const filter = `dateFrom=${month.from}&dateTo=${month.to}${status}`;
    const head = await app.request(`${path}?${filter}&limit=1`, { headers: { Authorization: `Bearer ${key}` } });
    const allCount = ((await head.json()) as { meta: { allCount: number } }).meta.allCount;
    const lastOffset = Math.max(0, allCount - 50);
    const first = await median(`${path}?${filter}&limit=50`);
    const last = await median(`${path}?${filter}&limit=50&offset=${lastOffset}`);
    console.log(`${path}?${filter}: ${allCount} matching; first page ${first.toFixed(2)} ms, last page (offset ${lastOffset}) ${last.toFixed(2)} ms, ratio ${(last / first).toFixed(2)}`);
  }
  const unfiltered = ((await (await app.request(`${path}?limit=1`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { meta: { allCount: number } }).meta.allCount;
  console.log(`${path} unfiltered: first ${(await median(`${path}?limit=50`)).toFixed(2)} ms, last ${(await median(`${path}?limit=50&offset=${Math.max(0, unfiltered - 50)}`)).toFixed(2)} ms`);
}

const plan = (sql: string) => (engine.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join(' / ');
console.log('count:', plan(`SELECT count(*) FROM documents INDEXED BY documents_date WHERE type = 'sale' AND date BETWEEN '${month.from}' AND '${month.to}'`));
console.log(
  'page:',
  plan(
    `SELECT list_json FROM documents WHERE key IN (SELECT key FROM documents INDEXED BY documents_date WHERE type = 'sale' AND date BETWEEN '${month.from}' AND '${month.to}' ORDER BY id LIMIT 50 OFFSET 1000) ORDER BY id`,
  ),
);
await tb.keys.revoke((await tb.keys.list()).find((k) => k.name === 'bench')!.id);
tb.close();
