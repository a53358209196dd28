import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type LineFailure, importLines, importRecords, nextGroupLines } from '../../src/use-cases/import.ts';
import { demoCompany } from '../../src/seed/demo-company.ts';
import { type TestService, manualClock, testService } from '../helpers.ts';

const services: TestService[] = [];
afterEach(() => services.splice(0).forEach((s) => s.tb.close()));
const service = async () => {
  const s = await testService({ clock: manualClock() });
  services.push(s);
  return s;
};
// Every column but the time and the hash over it (the two services' clocks differ).
const eventData = async (s: TestService) =>
  (await s.tb.audit.eventsAfter(0, 10_000)).map(({ seq, stream, stream_version, type, data, meta }) => ({ seq, stream, stream_version, type, data, meta }));

describe('importRecords (values without the JSON text round trip)', () => {
  it('appends the same events and read tables as importLines over the same records, whatever the commit size', async () => {
    const records = [...demoCompany(7, { products: 30, contractors: 10, documents: 120 })];
    const byLines = await service();
    async function* lines() {
      for (const r of records) yield JSON.stringify(r);
    }
    const lineReport = await importLines(byLines.tb, lines(), () => {});
    const byValues = await service();
    const valueReport = await importRecords(byValues.tb, records.map((value, i) => ({ line: i + 1, value })), () => {}, { linesPerGroup: 7 });
    expect(valueReport).toEqual(lineReport);
    expect(lineReport.failed).toBe(0);
    expect(await eventData(byValues)).toEqual(await eventData(byLines));
    expect(byValues.tb.readTables()).toEqual(byLines.tb.readTables());
  });

  it('a group of lines applies exactly as its lines one at a time, refused lines among them', async () => {
    const demo = [...demoCompany(11, { products: 20, contractors: 8, documents: 60 })];
    const firstDocument = demo.findIndex((r) => !['product', 'product_category', 'product_brand', 'contractor'].includes((r as { type: string }).type));
    const records: unknown[] = [
      ...demo.slice(0, firstDocument),
      // Refused by its decider: a contractor that does not exist yet (the next line adds it).
      { ...(demo[firstDocument] as object), data: { ...(demo[firstDocument] as { data: object }).data, contractor: { id: 999 } } },
      { type: 'contractor', data: { id: 999, type: 'ЮЛ', name: 'ООО Поздний', contactPerson: 'Петров Пётр', phone1: '+7 916 000-00-09', inn: '7700000009' } },
      ...demo.slice(firstDocument),
      // A line that changes nothing, a line of a bad field, a line that is not an object.
      demo[0],
      { type: 'contractor', data: { id: 1000, type: 'ЮЛ', name: 'ООО Вектор', contactPerson: 'Петров Пётр', phone1: '+7 916 000-00-01', inn: '12' } },
      'a string',
    ];
    const applied = async (perGroup: number) => {
      const s = await service();
      const failures: LineFailure[] = [];
      const report = await importRecords(s.tb, records.map((value, i) => ({ line: i + 1, value })), (f) => failures.push(f), { linesPerGroup: perGroup });
      return { report, failures, events: await eventData(s), tables: s.tb.readTables() };
    };
    const alone = await applied(1);
    expect(alone.failures.map((f) => f.errors[0].code)).toEqual(['ERROR_CONTRACTOR', 'ERROR_INN', 'ERROR_TYPE']);
    expect(await applied(50)).toEqual(alone);
    expect(await applied(1000)).toEqual(alone);
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
    expect((await s.tb.audit.eventsAfter(0, 100)).map((e) => e.type)).toEqual(['BrandAdded', 'BrandAdded']);
  });
});

describe('import line types that are names of Object properties', () => {
  const inherited = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

  it('are unknown types (ERROR_TYPE on their line); the valid lines of the same commit group all go in', async () => {
    const s = await service();
    const lines = [
      JSON.stringify({ type: 'product_brand', data: { name: 'A' } }),
      ...inherited.flatMap((type, i) => [JSON.stringify({ type, data: {} }), JSON.stringify({ type: 'product_brand', data: { name: `B${i}` } })]),
    ];
    const failures: LineFailure[] = [];
    const report = await importLines(s.tb, Readable.from(lines), (f) => failures.push(f));
    expect(report).toEqual({ lines: 11, applied: 6, failed: 5, events: 6 });
    expect(failures.map((f) => [f.line, f.errors.map((e) => [e.code, e.field])])).toEqual(inherited.map((_, i) => [2 * i + 2, [['ERROR_TYPE', 'type']]]));
    expect((await s.tb.brands.allJson()).map((b) => JSON.parse(b).name)).toEqual(['A', 'B0', 'B1', 'B2', 'B3', 'B4']);
  });

  it('an exception while one line is applied fails that line alone; the rest of its group commits', async () => {
    const s = await service();
    const append = s.tb.log.append.bind(s.tb.log);
    // A bug that one line's data sets off, wherever that line is applied: with its group, then alone.
    const spy = vi.spyOn(s.tb.log, 'append').mockImplementation((events, meta) => {
      if (events.some((e) => e.type === 'BrandAdded' && e.data.name === 'Сломанный')) throw new TypeError('a bug in a decider');
      return append(events, meta);
    });
    const failures: LineFailure[] = [];
    const report = await importRecords(
      s.tb,
      ['Заря', 'Сломанный', 'Восток'].map((name, i) => ({ line: i + 1, value: { type: 'product_brand', data: { name } } })),
      (f) => failures.push(f),
    );
    spy.mockRestore();
    expect(report).toEqual({ lines: 3, applied: 2, failed: 1, events: 2 });
    expect(failures.map((f) => [f.line, f.errors[0].code])).toEqual([[2, 'ERROR_INTERNAL']]);
    expect(failures[0].errors[0].message).toContain('a bug in a decider');
    expect((await s.tb.brands.allJson()).map((b) => JSON.parse(b).name)).toEqual(['Заря', 'Восток']);
  });
});

describe('groups sized by the time they take', () => {
  it('a group holds as many lines as take about 250 ms at the last pace: at most twice the last, between 20 and 2,000', () => {
    expect(nextGroupLines(200, 25)).toBe(400); // quick: doubles
    expect(nextGroupLines(1_600, 100)).toBe(2_000); // never past 2,000
    expect(nextGroupLines(400, 200)).toBe(500); // at the pace
    expect(nextGroupLines(200, 1_000)).toBe(50); // slow: shrinks at once
    expect(nextGroupLines(50, 10_000)).toBe(20); // never under 20
    expect(nextGroupLines(200, 0)).toBe(400);
  });

  // The writer's clock is made to read a fixed time a group: the sizes follow it, whatever this machine's speed.
  const brand = (i: number) => ({ type: 'product_brand', data: { name: `Бренд ${i}` } });
  const category = (i: number) => ({ type: 'product_category', data: { name: `Группа ${i}` } });
  const importTaking = async (groupMs: number, values: unknown[]) => {
    const s = await service();
    let now = 0;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => (now += groupMs));
    const before = s.tb.writer.commits;
    const lines = values.length;
    try {
      const records = values.map((value, i) => ({ line: i + 1, value }));
      expect(await importRecords(s.tb, records, () => {})).toEqual({ lines, applied: lines, failed: 0, events: lines });
    } finally {
      clock.mockRestore();
    }
    return s.tb.writer.commits - before;
  };
  const times = <T>(count: number, line: (i: number) => T) => Array.from({ length: count }, (_, i) => line(i));

  it('quick lines go in growing groups: 3,000 in 200, 400, 800 and 1,600', async () => {
    expect(await importTaking(20, times(3_000, brand))).toBe(4);
  });

  it('slow lines go in small groups: 1,000 in 200, 50, then 20 at a time', async () => {
    expect(await importTaking(1_000, times(1_000, brand))).toBe(2 + Math.ceil(750 / 20));
  });

  it('lines of another type start again at 200: 1,000 brands in 200, 400 and 400, then 300 groups in 200 and 100', async () => {
    expect(await importTaking(20, [...times(1_000, brand), ...times(300, category)])).toBe(5);
  });

  it('types taking turns line by line go 200 a group, as they always did', async () => {
    expect(await importTaking(20, times(1_000, (i) => (i % 2 === 0 ? brand(i) : category(i))))).toBe(5);
  });
});
