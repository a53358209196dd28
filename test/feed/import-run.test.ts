import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { Company } from '../../src/company.ts';
import { ApiClient, tempDir } from '../helpers.ts';
import { runCliHere as cli } from '../cli-in-process.ts';

test("an import run's own record (the operator's user and file) is an auditor's change, never an api key's", async () => {
  const dir = tempDir();
  const db = path.join(dir, 't.db');
  const lines = path.join(dir, 'brands.ndjson');
  fs.writeFileSync(lines, `${JSON.stringify({ type: 'product_brand', data: { name: 'Дуб' } })}\n`);
  expect((await cli(db, ['import', lines])).status).toBe(0);
  const tb = await Company.open({ engine: 'sqlite', file: db });
  try {
    const app = createApp(tb);
    const api = new ApiClient(app, (await tb.keys.create({ name: 'shop' })).key);
    const auditor = new ApiClient(app, (await tb.keys.create({ name: 'auditor', scope: 'audit' })).key);
    const audited = (await auditor.get('/api/changes')).body;
    expect(audited.data.map((c: { type: string; record: { kind: string } }) => [c.type, c.record.kind])).toEqual([
      ['BrandAdded', 'brand'],
      ['ImportRunRecorded', 'importRun'],
    ]);
    const seen = (await api.get('/api/changes')).body;
    expect(seen.data.map((c: { type: string }) => c.type)).toEqual(['BrandAdded']);
    expect(seen.meta.next).toBe(2);
    expect((await api.get('/api/changes?types=importRun')).body).toEqual({ meta: { after: 0, limit: 100, count: 0, next: 2 }, data: [] });
  } finally {
    await tb.close();
  }
});
