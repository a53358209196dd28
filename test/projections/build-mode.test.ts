import fc from 'fast-check';
import { expect, test } from 'vitest';
import { Company } from '../../src/company.ts';
import { demoCompany } from '../../src/seed/demo-company.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { PostgresEngine } from '../../src/storage/postgres/engine.ts';
import { expectRebuildEqualsLive, importRecords, line, sale } from '../documents-fixtures.ts';
import { testService } from '../helpers.ts';
import { describeEngines } from '../storage/postgres/engines.ts';
import { releaseReadModels as readModels } from '../../src/company.ts';

type Line = { type: string; data: Record<string, unknown> };
type Ref = { type: string; id: number };

/** A pseudo-random number source from a seed, so a failing history can be run again. */
function randomOf(seed: number) {
  let state = seed >>> 0 || 1;
  return (below: number) => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state % below;
  };
}

function shuffled<T>(items: T[], random: (below: number) => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = random(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const refName = (r: Ref) => `${r.type}:${r.id}`;
const basedOnOf = (l: Line) => (l.data.basedOn as Ref[] | undefined) ?? [];

/** Documents in a random order in which every document comes after those it is based on. */
function documentsInAnyOrder(documents: Line[], random: (below: number) => number): Line[] {
  const placed = new Set<string>();
  const waiting = [...documents];
  const out: Line[] = [];
  while (waiting.length > 0) {
    const ready = waiting.filter((l) => basedOnOf(l).every((p) => placed.has(refName(p))));
    const next = ready[random(ready.length)];
    waiting.splice(waiting.indexOf(next), 1);
    placed.add(refName({ type: next.type, id: next.data.id as number }));
    out.push(next);
  }
  return out;
}

/**
 * A demo company whose contractors, products and documents come in random id order, then revised: documents
 * posted and un-posted, re-dated into other months, given other sums, unlinked from what they were based on;
 * contractors renamed and their bonus programmes changed (an edit every document of theirs shows).
 */
async function writeHistory(tb: Company, seed: number): Promise<void> {
  const random = randomOf(seed);
  const lines = [...demoCompany(seed, { products: 30, contractors: 20, documents: 150 })] as Line[];
  const of = (type: (t: string) => boolean) => lines.filter((l) => type(l.type));
  const documents = of((t) => !['product_category', 'product_brand', 'product', 'contractor'].includes(t));
  const first = [
    ...of((t) => t === 'product_category' || t === 'product_brand'),
    ...shuffled(of((t) => t === 'contractor'), random),
    ...shuffled(of((t) => t === 'product'), random),
    ...documentsInAnyOrder(documents, random),
  ];
  expect(first).toHaveLength(lines.length);
  expect((await importRecords(tb, first)).failures).toEqual([]);

  const revisions: Line[] = [];
  for (const doc of shuffled(documents, random).slice(0, 60)) {
    const data = { ...doc.data };
    const change = random(4);
    if (change === 0) data.status = data.status === 1 ? 0 : 1;
    if (change === 1) data.date = `2026-0${1 + random(9)}-1${random(10)}`;
    if (change === 2 && typeof data.sum === 'number') data.sum = (data.sum as number) + 1 + random(5_000);
    if (change === 3) data.basedOn = [];
    revisions.push({ type: doc.type, data });
  }
  for (const contractor of shuffled(of((t) => t === 'contractor'), random).slice(0, 6)) {
    revisions.push({ type: 'contractor', data: { ...contractor.data, name: `${contractor.data.name} (переименован)`, bonus: { status: random(2), percent: 1 + random(9) } } });
  }
  // Products renamed: their names' words move (a build adds them in any order, then drops and adds them again).
  for (const product of shuffled(of((t) => t === 'product'), random).slice(0, 6)) {
    revisions.push({ type: 'product', data: { ...product.data, name: `Переименованный ${product.data.name}` } });
  }
  expect((await importRecords(tb, shuffled(revisions, random))).failures).toEqual([]);

  // Sales recorded after their contractors' programmes changed earn the new percent (a build takes it from the events).
  const edited = new Set(revisions.filter((l) => l.type === 'contractor').map((l) => l.data.id));
  const highestSale = Math.max(...of((t) => t === 'sale').map((l) => l.data.id as number));
  const laterSales = of((t) => t === 'sale')
    .filter((l) => edited.has((l.data.contractor as { id: number }).id))
    .map((l, i) => ({ type: 'sale', data: { ...l.data, id: highestSale + 1 + i, number: `LATER-${i}`, basedOn: [] } }));
  expect((await importRecords(tb, laterSales)).failures).toEqual([]);
}

test('a build from a log in random id order, with revisions and contractor edits, leaves the live tables row for row (SQLite)', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (seed) => {
      const { tb } = await testService();
      await writeHistory(tb, seed);
      await expectRebuildEqualsLive(tb);
    }),
    { numRuns: 6 },
  );
});

describeEngines('a build in build mode', (database) => {
  test('from a log in random id order, with revisions and contractor edits, it leaves the live tables row for row', async () => {
    const tb = await Company.over(await PostgresEngine.on(database(), readModels, { clock: systemClock }), { clock: systemClock });
    await writeHistory(tb, 20_261_127);
    await expectRebuildEqualsLive(tb);
  });
});

test('a build reads the contractors its documents show a statement a hundred documents, however many contractors there are', async () => {
  let statements: string[] | undefined;
  const { tb, api } = await testService({ trace: (sql) => statements?.push(sql) });
  // More contractors than a build keeps shown at once (20,000), and sales whose contractors take turns from both
  // ends of them, so that none is still kept when its next sale renders.
  const contractors = 20_100;
  const person = (id: number) => ({ id, type: 'ФЛ', name: `Контрагент ${id}`, contactPerson: 'Иванов', phone1: `+7 916 ${String(id).padStart(7, '0')}` });
  const sales = Array.from({ length: 400 }, (_, i) => sale(i + 1, 1, 100, { contractor: { id: i % 2 === 0 ? 1 + i : contractors - i } }));
  const lines = [
    line('product', { id: 1, name: 'Стол', sku: 'T1', categoryId: 0, salePrice: 1000 }),
    ...Array.from({ length: contractors }, (_, i) => line('contractor', person(i + 1))),
    ...sales,
  ];
  expect((await importRecords(tb, lines)).failures).toEqual([]);
  statements = [];
  await expectRebuildEqualsLive(tb);
  const contractorReads = statements.filter((sql) => /^SELECT (id, )?record FROM \S*contractors\S* WHERE id/.test(sql));
  statements = undefined;
  expect(contractorReads.length, contractorReads.slice(0, 5).join('\n')).toBeLessThanOrEqual(8);
  const shown = (await api.get('/api/sales?limit=2')).body.data.map((s: { contractor: { name: string } }) => s.contractor.name);
  expect(shown).toEqual(['Контрагент 1', `Контрагент ${contractors - 1}`]);
}, 60_000);
