import fs from 'node:fs';
import { expect, test } from 'vitest';
import { BACKSTOP_PAGES, Checkpointer } from '../../../src/storage/sqlite/checkpointer.ts';
import { openSqlite } from '../../../src/storage/sqlite/open.ts';
import { FaultLog } from '../../../src/storage/errors.ts';
import { smallDisk, tempDir, until } from '../../helpers.ts';

test('the worker copies committed WAL pages into the database file while the writer only appends to the WAL', async () => {
  const file = `${tempDir()}/c.db`;
  const db = openSqlite(file);
  db.exec('CREATE TABLE t (x TEXT)');
  db.pragma('wal_checkpoint(TRUNCATE)');
  const checkpointer = Checkpointer.start(db, 10);
  try {
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(BACKSTOP_PAGES);
    const before = fs.statSync(file).size;
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    // About 2 MB, far below the backstop: only the worker can have moved it into the database file.
    db.transaction(() => {
      for (let i = 0; i < 500; i++) insert.run('x'.repeat(4000));
    })();
    await until(() => fs.statSync(file).size > before + 1_000_000);
    // Every frame is in the database file now: a checkpoint finds nothing left to copy.
    const [state] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
    expect(state.checkpointed).toBe(state.log);
  } finally {
    await checkpointer.stop();
  }
  expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(500);
  db.close();
});

test('stop waits for the worker to close its connection, and the process is not held open by it', async () => {
  const file = `${tempDir()}/s.db`;
  const db = openSqlite(file);
  const checkpointer = Checkpointer.start(db, 5);
  await checkpointer.stop();
  // With the worker's connection closed, this one is the last: closing it removes the WAL file.
  db.close();
  expect(fs.existsSync(`${file}-wal`)).toBe(false);
});

test('checkpoints failing on a full disk are reported once, not every interval, and once when they work again (mount-based)', async () => {
  const disk = smallDisk('8m');
  if (!disk) return;
  const db = openSqlite(`${disk.dir}/c.db`);
  db.exec('CREATE TABLE t (x TEXT)');
  const insert = db.prepare('INSERT INTO t VALUES (?)');
  // About 2 MB in the WAL, below the auto-checkpoint: copying it needs the database file to grow.
  db.transaction(() => {
    for (let i = 0; i < 500; i++) insert.run('x'.repeat(4000));
  })();
  disk.fill();
  const lines: string[] = [];
  const checkpointer = Checkpointer.start(db, 5, new FaultLog('background checkpoints', (line) => lines.push(line)));
  try {
    await until(() => lines.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(lines).toEqual([expect.stringMatching(/^storage fault: background checkpoints fail: the disk holding the database is full \(SQLITE_FULL/)]);
    disk.free();
    await until(() => lines.length > 1);
    expect(lines[1]).toBe('background checkpoints succeed again');
  } finally {
    await checkpointer.stop();
    db.close();
  }
});
