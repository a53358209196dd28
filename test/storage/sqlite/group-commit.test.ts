import fs from 'node:fs';
import { expect, test, vi } from 'vitest';
import { NotDurableError } from '../../../src/storage/errors.ts';
import { GroupCommit } from '../../../src/storage/sqlite/group-commit.ts';
import { openSqlite } from '../../../src/storage/sqlite/open.ts';
import { failFsyncs, holdFsyncs, tempDir, until } from '../../helpers.ts';

function database() {
  const file = `${tempDir()}/group.db`;
  const db = openSqlite(file);
  db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO notes (text) VALUES (?)');
  const notes = () => db.prepare('SELECT text FROM notes ORDER BY id').pluck().all();
  return { file, db, insert, notes };
}

test('writes submitted in the same turn share one transaction, and each settles with its own value', async () => {
  const { db, insert, notes } = database();
  const group = new GroupCommit(db);
  const settled = await Promise.all(['a', 'b', 'c'].map((text) => group.run(() => insert.run(text).lastInsertRowid)));
  expect(settled).toEqual([1, 2, 3]);
  expect(group.commits).toBe(1);
  expect(notes()).toEqual(['a', 'b', 'c']);
});

test('a write that throws is undone alone and rejected; the others of its group stand', async () => {
  const { db, insert, notes } = database();
  const group = new GroupCommit(db);
  const outcomes = await Promise.allSettled([
    group.run(() => insert.run('kept')),
    group.run(() => {
      insert.run('undone');
      throw new Error('refused');
    }),
    group.run(() => insert.run('also kept')),
  ]);
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect(notes()).toEqual(['kept', 'also kept']);
  expect(group.commits).toBe(1);
});

test('when the transaction itself is lost (SQLite rolled it back), every write of the group is rejected and nothing stands', async () => {
  const { db, insert, notes } = database();
  const group = new GroupCommit(db);
  const outcomes = await Promise.allSettled([
    group.run(() => insert.run('first')),
    group.run(() => {
      // What SQLite does on disk-full or I/O errors: the whole transaction is rolled back under the caller.
      db.exec('ROLLBACK');
      throw new Error('disk I/O error');
    }),
    group.run(() => insert.run('third')),
  ]);
  expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
  expect(notes()).toEqual([]);
  expect(db.inTransaction).toBe(false);
  // The next group starts clean.
  await group.run(() => insert.run('later'));
  expect(notes()).toEqual(['later']);
});

test('a write settles only once the WAL holding its commit is fsynced, while it is already committed', async () => {
  const { db, insert, file } = database();
  const group = new GroupCommit(db);
  const held = holdFsyncs();
  try {
    let settled = false;
    const written = group.run(() => insert.run('x')).then(() => (settled = true));
    const fsynced: string[] = [];
    while (!settled) {
      await until(() => held.waiting.length > 0 || settled);
      if (settled) break;
      const { fd, release } = held.waiting.shift()!;
      fsynced.push(fs.readlinkSync(`/proc/self/fd/${fd}`));
      expect(settled).toBe(false);
      // Committed: another connection reads it.
      const other = openSqlite(file);
      expect(other.prepare('SELECT count(*) FROM notes').pluck().get()).toBe(1);
      other.close();
      release();
    }
    await written;
    expect(fsynced.at(-1)).toBe(`${fs.realpathSync(file)}-wal`);
  } finally {
    held.restore();
  }
});

test('a write that settles at commit asks for no fsync and is answered at once; in a group with a durable one, only that one waits for the disk', async () => {
  const { db, insert, file } = database();
  const group = new GroupCommit(db);
  const held = holdFsyncs();
  try {
    expect(await group.run(() => insert.run('alone').changes, 'committed')).toBe(1);
    expect(held.waiting).toEqual([]);
    const settled: string[] = [];
    const durable = group.run(() => insert.run('durable')).then(() => settled.push('durable'));
    const committed = group.run(() => insert.run('committed'), 'committed').then(() => settled.push('committed'));
    await committed;
    await until(() => held.waiting.length > 0);
    expect(settled).toEqual(['committed']);
    expect(group.commits).toBe(2);
    // The durable write's fsync is of the whole WAL: the commits before it reach the disk with it.
    while (settled.length < 2) {
      await until(() => held.waiting.length > 0 || settled.length === 2);
      held.waiting.shift()?.release();
    }
    await durable;
    expect(settled).toEqual(['committed', 'durable']);
    const other = openSqlite(file);
    expect(other.prepare('SELECT text FROM notes ORDER BY id').pluck().all()).toEqual(['alone', 'durable', 'committed']);
    other.close();
  } finally {
    held.restore();
  }
});

test('a write whose WAL fsync fails is rejected, never acknowledged', async () => {
  const { db, insert } = database();
  const group = new GroupCommit(db);
  const restoreFsync = failFsyncs();
  try {
    await expect(group.run(() => insert.run('x'))).rejects.toThrow(NotDurableError);
  } finally {
    restoreFsync();
  }
});

test('while another process holds the write lock the group waits without blocking the event loop, and writes arriving meanwhile follow', async () => {
  const { db, insert, notes, file } = database();
  db.pragma('busy_timeout = 0');
  const group = new GroupCommit(db);
  const other = openSqlite(file);
  other.exec('BEGIN IMMEDIATE');
  const first = group.run(() => insert.run('first'));
  await new Promise((resolve) => setTimeout(resolve, 30));
  const second = group.run(() => insert.run('second'));
  expect(notes()).toEqual([]); // reads are answered meanwhile
  other.exec('COMMIT');
  other.close();
  await Promise.all([first, second]);
  expect(notes()).toEqual(['first', 'second']);
});

test('a database not in WAL mode commits at its own synchronous level and settles without a WAL fsync', async () => {
  const { db, insert, notes } = database();
  db.pragma('journal_mode = DELETE');
  const group = new GroupCommit(db);
  const held = holdFsyncs();
  try {
    let settled = false;
    const written = group.run(() => insert.run('x')).then(() => (settled = true));
    // SQLite's own commit fsyncs on this thread; nothing is left for a WAL fsync to hold back.
    await until(() => settled);
    await written;
    expect(notes()).toEqual(['x']);
    expect(held.waiting).toEqual([]);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
  } finally {
    held.restore();
  }
});
