import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect, test, vi } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { openSqlite } from '../../../src/storage/sqlite/open.ts';
import { FaultLog, StorageFault } from '../../../src/storage/errors.ts';
import { storageFaultOf } from '../../../src/storage/storage-fault.ts';
import { freshBuild } from '../../../src/storage/sqlite/read-tables.ts';
import { verify } from '../../../src/read-models/verify.ts';
import { Projections } from '../../../src/projections/registry.ts';
import { smallDisk, tempDir, testService } from '../../helpers.ts';
import { releaseReadModels as readModels } from '../../../src/company.ts';

const diskFull = () => new Database.SqliteError('database or disk is full', 'SQLITE_FULL');

test('SQLite and file-system codes are classified into storage faults; anything else is not one', () => {
  const kind = (code: string) => storageFaultOf(Object.assign(new Error(code), { code }))?.kind;
  expect(['SQLITE_FULL', 'ENOSPC', 'EDQUOT'].map(kind)).toEqual(['full', 'full', 'full']);
  expect(['SQLITE_READONLY', 'SQLITE_READONLY_DBMOVED', 'EROFS', 'EACCES'].map(kind)).toEqual(['read-only', 'read-only', 'read-only', 'read-only']);
  expect(['SQLITE_IOERR', 'SQLITE_IOERR_WRITE', 'SQLITE_CANTOPEN', 'EIO'].map(kind)).toEqual(['io', 'io', 'io', 'io']);
  for (const other of ['SQLITE_BUSY', 'SQLITE_CONSTRAINT', 'SQLITE_ERROR', 'ENOENT']) expect(kind(other)).toBeUndefined();
  expect(storageFaultOf(new Error('a bug'))).toBeUndefined();
  expect(storageFaultOf(undefined)).toBeUndefined();
  const fault = new StorageFault('full', 'x');
  expect(storageFaultOf(fault)).toBe(fault);
});

test('a FaultLog reports a lasting fault once, a change of fault once more, and recovery once', () => {
  const lines: string[] = [];
  const faults = new FaultLog('writes', (line) => lines.push(line));
  faults.succeeded();
  // The engine names its errors (storageFaultOf); the log only counts them.
  for (let i = 0; i < 5; i++) faults.failed(storageFaultOf(diskFull()));
  faults.failed(storageFaultOf(Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' })));
  faults.failed(storageFaultOf(Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' })));
  faults.succeeded();
  faults.succeeded();
  expect(lines).toEqual([
    'storage fault: writes fail: the disk holding the database is full (SQLITE_FULL: database or disk is full)',
    'storage fault: writes fail: the database cannot be written: its file, folder or file system is read-only (SQLITE_READONLY: attempt to write a readonly database)',
    'writes succeed again',
  ]);
});

test('opening a database whose folder cannot be created is a storage fault, before SQLite opens anything', () => {
  const blocker = path.join(tempDir(), 'a-file');
  fs.writeFileSync(blocker, '');
  expect(() => openSqlite(path.join(blocker, 'sub', 'tradebook.db'))).toThrow(StorageFault);
});

test('opening a database on a read-only file system for writing is refused as read-only (mount-based)', async () => {
  const disk = smallDisk();
  if (!disk) return;
  const file = path.join(disk.dir, 'tradebook.db');
  openSqlite(file).close();
  disk.remount('ro');
  try {
    expect(() => openSqlite(file)).toThrow(expect.objectContaining({ kind: 'read-only' }));
  } finally {
    disk.remount('rw');
  }
});

test('a storage failure while verify rebuilds is "could not check" (exit 2), never a difference', async () => {
  const { tb, api, file } = await testService();
  expect((await api.write('/api/add-product-brand', 'brand', [{ name: 'Бренд' }])).status).toBe(200);
  tb.close();
  const replay = vi.spyOn(Projections.prototype, 'replay').mockImplementation(() => {
    throw diskFull();
  });
  const db = openSqlite(file, { readonly: true });
  try {
    await expect(freshBuild(db, (fresh) => verify(readModels, fresh))).rejects.toThrow(expect.objectContaining({ kind: 'full' }));
  } finally {
    db.close();
  }
  // The command itself, in this process (the injection does not cross into another one).
  const out: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
  const env = process.env.TRADEBOOK_DB;
  process.env.TRADEBOOK_DB = file;
  try {
    await main(['node', 'tradebook', 'verify']);
  } finally {
    process.env.TRADEBOOK_DB = env;
    write.mockRestore();
    replay.mockRestore();
  }
  expect(process.exitCode).toBe(2);
  process.exitCode = undefined;
  expect(out.join('')).toMatch(/^verify: COULD NOT CHECK: the disk holding the database is full \(SQLITE_FULL/);
  expect(out.join('')).not.toMatch(/differ/);
  expect(fs.existsSync(`${file}.verify`)).toBe(false);
});

test('a rebuild that fails for a storage fault throws it and leaves the served tables as they were', async () => {
  const { tb, api } = await testService();
  expect((await api.write('/api/add-product', 'products', [{ name: 'Молоко', sku: 'M1', categoryId: 0 }])).status).toBe(200);
  const before = (await api.get('/api/products')).text;
  const flush = vi.spyOn(Projections.prototype, 'flush').mockImplementation(() => {
    throw diskFull();
  });
  try {
    await expect(tb.rebuild()).rejects.toThrow(expect.objectContaining({ code: 'SQLITE_FULL' }));
  } finally {
    flush.mockRestore();
  }
  expect((await api.get('/api/products')).text).toBe(before);
  expect(tb.db.prepare("SELECT count(*) FROM sqlite_master WHERE name LIKE 'rebuilding_%'").pluck().get()).toBe(0);
});
