import path from 'node:path';
import { expect, test } from 'vitest';
import { openSqlite } from '../../../src/storage/sqlite/open.ts';
import { sqliteSession } from '../../../src/storage/sqlite/session.ts';
import { tempDir } from '../../helpers.ts';

test('the count and the page come from one snapshot, even when another connection commits between them', async () => {
  const file = path.join(tempDir(), 'pages.db');
  const db = openSqlite(file);
  const other = openSqlite(file);
  db.exec('CREATE TABLE records (position INTEGER PRIMARY KEY, json TEXT NOT NULL)');
  db.prepare('INSERT INTO records (position, json) VALUES (?, ?)').run(1, '{"n":1}');
  // Called by the count query: another process appends a record while this request is between its two reads.
  const appendElsewhere = other.prepare('INSERT INTO records (position, json) VALUES ((SELECT max(position) + 1 FROM records), \'{"n":2}\')');
  db.function('append_elsewhere', () => appendElsewhere.run().changes);
  const session = sqliteSession(db);
  const query = { select: 'SELECT json FROM records WHERE position > ? ORDER BY position LIMIT ?', allCount: 'SELECT max(position) * append_elsewhere() FROM records' };
  const page = (offset: number, limit: number) => session.joinedPage(query, { select: [offset, limit], allCount: [] });

  const first = await page(0, 10);
  expect({ allCount: first.allCount, count: first.count, json: first.json.toString() }).toEqual({ allCount: 1, count: 1, json: '{"n":1}' });
  // The record appended meanwhile is there for the next request.
  expect(await page(0, 10)).toMatchObject({ allCount: 2, count: 2 });
  other.close();
  db.close();
});
