import { afterEach, describe, expect, it } from 'vitest';
import { type LineFailure, importLines, importRecords } from '../../src/use-cases/import.ts';
import { demoCompany } from '../../src/seed/demo-company.ts';
import { type TestService, manualClock, testService } from '../helpers.ts';
import { dumpReadTables } from '../read-tables.ts';

const services: TestService[] = [];
afterEach(() => services.splice(0).forEach((s) => s.tb.close()));
const service = async () => {
  const s = await testService({ clock: manualClock() });
  services.push(s);
  return s;
};
const eventData = (s: TestService) => s.tb.db.prepare('SELECT seq, stream, stream_version, type, data, meta FROM events ORDER BY seq').all();

describe('importRecords (values without the JSON text round trip)', () => {
  it('appends the same events and read tables as importLines over the same records, whatever the commit size', async () => {
    const records = [...demoCompany(7, { products: 30, contractors: 10, documents: 120 })];
    const byLines = await service();
    async function* lines() {
      for (const r of records) yield JSON.stringify(r);
    }
    const lineReport = await importLines(byLines.tb, lines(), () => {});
    const byValues = await service();
    const valueReport = await importRecords(byValues.tb, records.map((value, i) => ({ line: i + 1, value })), () => {}, 7);
    expect(valueReport).toEqual(lineReport);
    expect(lineReport.failed).toBe(0);
    expect(eventData(byValues)).toEqual(eventData(byLines));
    expect(dumpReadTables(byValues.tb.db)).toEqual(dumpReadTables(byLines.tb.db));
  });

  it('reports a bad record by its line and applies nothing of it; the others go in', async () => {
    const s = await service();
    const failures: LineFailure[] = [];
    const report = await importRecords(
      s.tb,
      [
        { line: 1, value: { type: 'product_brand', data: { name: 'Заря' } } },
        { line: 2, value: { type: 'nonsense', data: {} } },
        { line: 3, value: { type: 'contractor', data: { id: 1, type: 'ЮЛ', name: 'ООО Вектор', contactPerson: 'Петров Пётр', phone1: '+7 916 000-00-01', inn: '12' } } },
        { line: 4, value: { type: 'product_brand', data: { name: 'Восток' } } },
      ],
      (f) => failures.push(f),
    );
    expect(report).toEqual({ lines: 4, applied: 2, failed: 2, events: 2 });
    expect(failures.map((f) => [f.line, f.errors[0].code])).toEqual([
      [2, 'ERROR_TYPE'],
      [3, 'ERROR_INN'],
    ]);
    expect(s.tb.db.prepare('SELECT type FROM events ORDER BY seq').pluck().all()).toEqual(['BrandAdded', 'BrandAdded']);
  });
});
