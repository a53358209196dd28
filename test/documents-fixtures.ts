import { expect } from 'vitest';
import { type ImportOptions, type LineFailure, importLines } from '../src/use-cases/import.ts';
import type { Company } from '../src/company.ts';
import { PostgresEngine } from '../src/storage/postgres/engine.ts';
import { SqliteEngine } from '../src/storage/sqlite/engine.ts';
import { dumpReadTables } from './read-tables.ts';

/** Imports NDJSON records (objects become lines) and returns the report with every failure. */
export async function importRecords(tb: Company, records: ({ type: string; data: unknown } | string)[], options: ImportOptions = {}) {
  const failures: LineFailure[] = [];
  async function* lines() {
    for (const r of records) yield typeof r === 'string' ? r : JSON.stringify(r);
  }
  const report = await importLines(tb, lines(), (f) => failures.push(f), options);
  return { ...report, failures };
}

export const line = (type: string, data: Record<string, unknown>) => ({ type, data });

export const romashka = {
  id: 7,
  type: 'ЮЛ',
  name: 'ООО Ромашка',
  contactPerson: 'Иванов Иван',
  phone1: '+7 916 123-45-67',
  inn: '7701234567',
  kpp: '770101001',
  bonus: { status: 1, percent: 5 },
};

/** The product the lines of `sale` name: a document's lines may only name products that exist. */
export const table = { id: 1, name: 'Стол', sku: 'T1', categoryId: 0 };

export const sale = (id: number, status: number, price: number, extra: Record<string, unknown> = {}) =>
  line('sale', { id, date: '2026-11-02', status, contractor: { id: 7 }, created: '2026-11-02 10:00:00', products: [{ pr_id: 1, pr_name: 'Стол', pr_count: 1, pr_price: price }], ...extra });

export const money = (type: string, id: number, status: number, sum: number, basedOn: { type: string; id: number }[] = [], extra: Record<string, unknown> = {}) =>
  line(type, { id, date: '2026-11-03', status, contractor: { id: 7 }, sum, basedOn, ...extra });

/** How many events the log holds, as an auditor reads it. */
export const eventCount = (tb: Company) => tb.audit.lastSeq();

/** The read tables a rebuild leaves equal the live ones, row for row, as the audit reads dump them. */
export async function expectRebuildEqualsLive(tb: Company) {
  if (tb.engine instanceof PostgresEngine) {
    // A fresh build compared with the live tables row by row, then the rebuild swapped in and compared again.
    expect((await tb.verify()).projections).toMatchObject({ ok: true, differences: [] });
    await tb.rebuild();
    expect((await tb.verify()).projections).toMatchObject({ ok: true, differences: [] });
    return;
  }
  if (!(tb.engine instanceof SqliteEngine)) throw new Error('a tradebook on an engine the fixtures do not know');
  const live = dumpReadTables(tb.engine.db);
  await tb.rebuild();
  expect(dumpReadTables(tb.engine.db)).toEqual(live);
}
