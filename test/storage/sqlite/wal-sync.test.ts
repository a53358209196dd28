import { expect, test } from 'vitest';
import { openSqlite } from '../../../src/storage/sqlite/open.ts';
import { WalSync } from '../../../src/storage/sqlite/wal-sync.ts';
import { tempDir } from '../../helpers.ts';

test('callers asking while an fsync runs share the next one, which starts after it', async () => {
  const file = `${tempDir()}/wal.db`;
  const db = openSqlite(file);
  db.exec('CREATE TABLE t (x)');
  const wal = new WalSync(file);
  try {
    await wal.sync();
    expect(wal.syncs).toBe(1);
    const order: string[] = [];
    const first = wal.sync().then(() => order.push('first'));
    const second = wal.sync().then(() => order.push('second'));
    const third = wal.sync().then(() => order.push('third'));
    await Promise.all([first, second, third]);
    expect(wal.syncs).toBe(3);
    expect(order).toEqual(['first', 'second', 'third']);
    // Nothing running: the next caller starts one of its own.
    await wal.sync();
    expect(wal.syncs).toBe(4);
  } finally {
    wal.close();
    db.close();
  }
});
