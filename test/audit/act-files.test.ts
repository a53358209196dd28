import { expect, test } from 'vitest';
import type { StatementLine, StatementWalk } from '../../src/audit/statement.ts';
import { actXlsx } from '../../src/http/workbench/act-files.ts';
import { ru } from '../../src/http/workbench/texts.ts';
import { until } from '../helpers.ts';

test('a client that stops reading an act’s XLSX ends its writing: the statement is read no further', async () => {
  let pagesRead = 0;
  let finished = false;
  const line = (i: number): StatementLine => ({ date: '2026-11-02', type: 'sale', id: i, number: `О-${i}`, debit: 100, credit: null, balance: -100 * i });
  const walk: StatementWalk = {
    dateFrom: '2026-11-01',
    dateTo: '2026-11-30',
    opening: 0,
    later: 0,
    tooLong: false,
    async *pages() {
      try {
        for (let page = 0; page < 200; page++) {
          pagesRead++;
          yield Array.from({ length: 500 }, (_, i) => line(page * 500 + i + 1));
        }
      } finally {
        finished = true;
      }
    },
    totals: () => ({ debit: 0, credit: 0, closing: 0 }),
  };
  const contractor = { id: 7, name: 'ООО Ромашка', inn: null, kpp: null, kind: 'ЮЛ' as const };
  const reader = actXlsx(ru, { company: undefined, contractor, statement: walk }).getReader();
  expect((await reader.read()).done).toBe(false);
  await reader.cancel();
  await until(() => finished);
  expect(pagesRead).toBeLessThan(200);
});
