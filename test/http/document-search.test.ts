import { describe, expect, test } from 'vitest';
import { searchSql } from '../../src/projections/documents/queries.ts';
import { type EngineService, TEST_ENGINE, engineService as testService } from '../engine-service.ts';
import { importRecords, line, money, romashka } from '../documents-fixtures.ts';
import { Browser } from '../workbench-client.ts';

/**
 * The auditors' document search pages by key: each page reads on from the last document of the one before in an
 * index in the search's order, so a page deep in a contractor's 30,000 documents costs what the first one does.
 */

/**
 * Imported on SQLite; on PostgreSQL (where importing 30,000 takes minutes) 3,000 are imported and walked, then
 * copied nine times over in SQL before the plans are read.
 */
const DOCUMENTS = TEST_ENGINE === 'sqlite' ? 30_000 : 3_000;
const PLANNED = 30_000;
const PAGE = 50;

/** A day from 2020 on: many documents share one, so the key decides among them. */
const dayOf = (i: number) => new Date(Date.UTC(2020, 0, 1) + (i % 1_500) * 86_400_000).toISOString().slice(0, 10);

/**
 * A contractor (7) with 30,000 documents, an auditor signed in, and every document of the contractor in the
 * search's order (newest date first, then the later key), as `type-id`.
 */
async function bigContractor(): Promise<{ service: EngineService; auditor: Browser; expected: string[] }> {
  const service = await testService();
  // Ids shuffled (7,919 is prime to 30,000), dates in no order of the ids, two types.
  const lines = Array.from({ length: DOCUMENTS }, (_, i) => {
    const id = ((i * 7_919) % DOCUMENTS) + 1;
    return money(i % 3 === 0 ? 'cashin' : 'paymentin', id, i % 5 === 0 ? 0 : 1, 100 + (i % 97), [], { date: dayOf(i * 31) });
  });
  // In groups of 2,000 lines: paced groups would stay at 200 here, the type changing every line or two.
  const imported = await importRecords(service.tb, [line('contractor', romashka), ...lines], { linesPerGroup: 2_000 });
  expect(imported.failures).toEqual([]);
  const expected = (await service.tb.engine.readOn.rows<[string, number]>('SELECT type, id FROM documents WHERE contractor_id = ? ORDER BY date DESC, key DESC', [7])).map(
    ([type, id]) => `${type}-${id}`,
  );
  expect(expected).toHaveLength(DOCUMENTS);
  const { key } = await service.tb.keys.create({ name: 'auditor', scope: 'audit' });
  const auditor = new Browser(service.app);
  await auditor.signIn(key);
  return { service, auditor, expected };
}

/** The documents a search page lists, in order, as `type-id`. */
const listed = (text: string) => [...text.matchAll(/<a href="\/audit\/document\/([a-z]+)\/(\d+)">/g)].map((m) => `${m[1]}-${m[2]}`);
const link = (text: string, rel: 'next' | 'prev') => new RegExp(`<a href="([^"]+)" rel="${rel}">`).exec(text)?.[1].replaceAll('&amp;', '&');

describe('the document search pages by key', () => {
  test('next and previous from any depth give the documents in order, none twice, none left out; each page a read in index order from the cursor, no sort, on either engine', async () => {
    const { service, auditor, expected } = await bigContractor();
    const first = await auditor.get('/audit/documents?contractor=7');
    expect(first.status).toBe(200);
    expect(listed(first.text)).toEqual(expected.slice(0, PAGE));
    expect(link(first.text, 'prev')).toBeUndefined();
    const second = await auditor.get(link(first.text, 'next')!);
    expect(listed(second.text)).toEqual(expected.slice(PAGE, 2 * PAGE));

    const deep = DOCUMENTS - 120;
    const far = await auditor.get(`/audit/documents?contractor=7&after=${expected[deep - 1]}`);
    expect(listed(far.text)).toEqual(expected.slice(deep, deep + PAGE));
    const back = await auditor.get(link(far.text, 'prev')!);
    expect(listed(back.text)).toEqual(expected.slice(deep - PAGE, deep));
    const last = await auditor.get(link((await auditor.get(link(far.text, 'next')!)).text, 'next')!);
    expect(listed(last.text)).toEqual(expected.slice(deep + 2 * PAGE));
    expect(link(last.text, 'next')).toBeUndefined();

    const cashins = expected.filter((d) => d.startsWith('cashin-'));
    const filtered = await auditor.get(`/audit/documents?contractor=7&type=cashin&after=${cashins[500]}`);
    expect(listed(filtered.text)).toEqual(cashins.slice(501, 501 + PAGE));
      const session = service.tb.engine.readOn;
    if (TEST_ENGINE !== 'sqlite') {
      await session.run(`INSERT INTO documents (key, type, id, date, month, status, contractor_id, paid, list_json)
        SELECT key + 1000000 * g, type, id + 1000000 * g, date, month, status, contractor_id, paid, list_json FROM documents, generate_series(1, ${PLANNED / DOCUMENTS - 1}) AS g`);
      // As autovacuum would by now: without statistics PostgreSQL takes a freshly filled table for an empty one.
      await session.run('ANALYZE documents');
    }
    expect(Number(await session.value('SELECT count(*) FROM documents WHERE contractor_id = 7'))).toBe(PLANNED);
    const at = (await session.objects<{ date: string; key: number }>('SELECT date, key FROM documents WHERE type = ? AND id = ?', expected[2_000].split('-').map((v, i) => (i === 0 ? v : Number(v)))))[0];
    const searches = [
      [{ contractorId: 7 }, 'documents_contractor_newest'],
      [{ contractorId: 7, type: 'paymentin', status: 1 }, 'documents_contractor_newest'],
      [{}, 'documents_newest'],
      [{ type: 'cashin', dateFrom: '2020-06-01' }, 'documents_type_newest'],
    ] as const;
    for (const [by, sqliteIndex] of searches) {
      for (const toward of ['older', 'newer'] as const) {
        const { sql, params } = searchSql(session.dialect, by, PAGE + 1, { ...at, toward });
        if (TEST_ENGINE === 'sqlite') {
          const plan = (await session.rows<[number, number, number, string]>(`EXPLAIN QUERY PLAN ${sql}`, params)).map((row) => row[3]).join('\n');
          expect(plan, JSON.stringify(by)).toContain(`USING INDEX ${sqliteIndex}`);
          expect(plan, JSON.stringify(by)).not.toContain('TEMP B-TREE');
        } else {
          const numbered = sql.split('?').reduce((text, part, i) => `${text}$${i}${part}`);
          const plan = (await session.rows<[string]>(`EXPLAIN ${numbered}`, params)).map((row) => row[0]).join('\n');
          // The planner chooses among the indexes by its statistics: one in the order asked, or (a type's dates)
          // one in date order whose documents of a day it sorts by key (an incremental sort, a day at a time, the
          // cursor's date the index's bound). Never a scan of the table, never a sort of all it found.
          expect(plan, JSON.stringify(by)).toMatch(/Index Scan (Backward )?using documents_/);
          expect(plan, JSON.stringify(by)).not.toMatch(/Seq Scan|(^|->\s+)Sort\s+\(/m);
        }
      }
    }
  }, 600_000);

  test('a cursor that names no document is the form’s error', async () => {
    const { tb, app } = await testService();
    const { key } = await tb.keys.create({ name: 'auditor', scope: 'audit' });
    const auditor = new Browser(app);
    await auditor.signIn(key);
    for (const wrong of ['sale', 'nonsense-1', 'sale-0', 'sale-1.5', `sale-${'9'.repeat(30)}`]) {
      const res = await auditor.get(`/audit/documents?contractor=7&after=${wrong}`);
      expect(res.status, wrong).toBe(400);
      expect(res.text, wrong).toContain('The place in the list (after, before) must name a document, e.g. sale-187.');
    }
  });

});
