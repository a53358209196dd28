import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { withBuildSettings } from '../../../src/storage/sqlite/maintenance.ts';
import { openSqlite } from '../../../src/storage/sqlite/open.ts';
import { buildBeside, freshBuild } from '../../../src/storage/sqlite/read-tables.ts';

// SQLite's temp_store: 0 the compile-time default (files), 1 files, 2 memory.
const FILE = 1;
const MEMORY = 2;

describe("a connection's temporary B-trees", () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-temp-store-'));
  afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

  test('a serving connection keeps them in memory; a bulk build spills them to files, and is back in memory after', async () => {
    const db = openSqlite(path.join(folder, 'live.db'));
    try {
      const tempStore = () => db.pragma('temp_store', { simple: true });
      expect(tempStore()).toBe(MEMORY);
      const during = await withBuildSettings(db, async () => tempStore());
      expect(during).toBe(FILE);
      expect(tempStore()).toBe(MEMORY);
      await expect(withBuildSettings(db, async () => Promise.reject(new Error('the build failed')))).rejects.toThrow('the build failed');
      expect(tempStore()).toBe(MEMORY);
    } finally {
      db.close();
    }
  });

  test("verify's comparison of whole tables spills them to files", async () => {
    const db = openSqlite(path.join(folder, 'verified.db'));
    try {
      let during: unknown;
      await freshBuild(db, (fresh) => fresh.snapshot(async () => (during = db.pragma('temp_store', { simple: true }))));
      expect(during).toBe(FILE);
      expect(db.pragma('temp_store', { simple: true })).toBe(MEMORY);
    } finally {
      db.close();
    }
  });

  test("a rebuild's swap, which creates every index of the built tables, spills them to files", async () => {
    const db = openSqlite(path.join(folder, 'swapped.db'));
    try {
      let during: unknown;
      await buildBeside(db).swap('', async () => void (during = db.pragma('temp_store', { simple: true })));
      expect(during).toBe(FILE);
      expect(db.pragma('temp_store', { simple: true })).toBe(MEMORY);
    } finally {
      db.close();
    }
  });

  test("a rebuild's scratch database keeps SQLite's default (its sorts are as large as its tables)", () => {
    const db = openSqlite(path.join(folder, 'scratch.db'), { scratch: true });
    try {
      expect(db.pragma('temp_store', { simple: true })).toBe(0);
    } finally {
      db.close();
    }
  });
});
