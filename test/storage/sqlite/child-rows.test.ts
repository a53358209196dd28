import { expect, test } from 'vitest';
import Database from 'better-sqlite3';
import { childRowsWriter } from '../../../src/projections/child-rows.ts';
import type { ChildRows } from '../../../src/projections/read-model.ts';
import { sqliteSession } from '../../../src/storage/sqlite/session.ts';

/** A record of a table partitioned by `kind`, based on other records. */
interface Item {
  kind: string;
  id: number;
  basedOn: { kind: string; id: number }[];
}

const LINKS: ChildRows<Item> = {
  table: 'links',
  parent: ['child_kind', 'child_id'],
  columns: { child_kind: 'text', child_id: 'integer', parent_kind: 'text', parent_id: 'integer' },
  parentKey: ({ kind, id }) => [kind, id],
  rows: ({ kind, id, basedOn }) => basedOn.map((p) => [kind, id, p.kind, p.id]),
};

/** A writer over an in-memory table, and every statement it runs with its values. */
function writer() {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE links (child_kind TEXT, child_id INTEGER, parent_kind TEXT, parent_id INTEGER, PRIMARY KEY (child_kind, child_id, parent_kind, parent_id)) WITHOUT ROWID');
  const session = sqliteSession(db);
  const runs: [string, readonly unknown[] | undefined][] = [];
  const traced = { ...session, run: (text: string, params?: readonly unknown[]) => (runs.push([text, params]), session.run(text, params)) };
  const rows = () => db.prepare('SELECT * FROM links ORDER BY 1, 2, 3, 4').raw().all();
  return { links: childRowsWriter(traced, (name) => name, LINKS, { childRows: 'in-place' }), runs, rows };
}

test('new records\' rows are kept back and inserted with one statement', async () => {
  const { links, runs } = writer();
  links.add({ kind: 'sale', id: 9, basedOn: [{ kind: 'order', id: 4 }, { kind: 'order', id: 2 }] });
  links.add({ kind: 'payment', id: 3, basedOn: [{ kind: 'sale', id: 9 }] });
  links.add({ kind: 'sale', id: 1, basedOn: [] });
  links.add({ kind: 'payment', id: 1, basedOn: [{ kind: 'sale', id: 9 }] });
  await links.write();
  expect(runs).toHaveLength(1);
  expect(runs[0][1]).toEqual(['sale', 9, 'order', 4, 'sale', 9, 'order', 2, 'payment', 3, 'sale', 9, 'payment', 1, 'sale', 9]);
});

test('a changed record\'s rows are rewritten only when they differ, after the rows kept back', async () => {
  const { links, runs, rows } = writer();
  const sale = (basedOn: Item['basedOn']): Item => ({ kind: 'sale', id: 5, basedOn });
  links.add(sale([{ kind: 'order', id: 1 }]));
  // The same rows: nothing written, the rows kept back stay kept.
  links.change(sale([{ kind: 'order', id: 1 }]), sale([{ kind: 'order', id: 1 }]));
  expect(runs).toEqual([]);
  // Other rows: the record's rows kept back are written before its rows are dropped, so none of them outlives the change;
  // the parents replaced are dropped with one statement.
  links.change(sale([{ kind: 'order', id: 1 }]), sale([{ kind: 'order', id: 2 }, { kind: 'order', id: 3 }]));
  await links.write();
  expect(rows()).toEqual([['sale', 5, 'order', 2], ['sale', 5, 'order', 3]]);
  runs.length = 0;
  links.change(sale([{ kind: 'order', id: 2 }, { kind: 'order', id: 3 }]), sale([]));
  await links.write();
  expect(rows()).toEqual([]);
  expect(runs.map(([text]) => text.split(' ')[0])).toEqual(['DELETE']);
});

test('rows kept back are forgotten when the transaction is rolled back', async () => {
  const { links, runs } = writer();
  links.add({ kind: 'sale', id: 9, basedOn: [{ kind: 'order', id: 4 }] });
  links.discard();
  await links.write();
  expect(runs).toEqual([]);
});
