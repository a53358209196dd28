import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, test, vi } from 'vitest';
import { ok } from '../../../src/lib/result.ts';
import { openSqliteCompany, smallDisk, tempDir, testService, until } from '../../helpers.ts';
import { HttpClient, runCli, startServer } from '../../server-process.ts';

// Real processes on a real small file system (tmpfs, mounted as root). Where mounting is not permitted these
// are skipped (said on stderr); the same faults are injected in-process by test/storage/sqlite/faults-over-http.test.ts and
// test/db/storage-fault.test.ts.
vi.setConfig({ testTimeout: 120_000 });

const ROOT = path.resolve(import.meta.dirname, '../../..');
const KEY = 'storage-faults-test-key-0123456789';

/** The server started on `file`, waited for until it exits (it is expected to refuse to start). */
function serverUntilExit(file: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/server.mjs')], {
    cwd: ROOT,
    env: { ...process.env, TRADEBOOK_DB: file, TRADEBOOK_API_KEY: KEY, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) => child.once('close', (status) => (clearTimeout(timer), resolve({ status, stdout, stderr }))));
}

/** Empties the WAL, so the next commit must grow it: on a full disk it fails at once. */
function truncateWal(file: string): void {
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

const eventCount = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM events').pluck().get() as number;
  } finally {
    db.close();
  }
};

/** A database on `disk` with a product or two, the way a running server leaves it; `holder` keeps its WAL and index open. */
async function loggedDatabase(dir: string): Promise<{ file: string; holder: Database.Database }> {
  const file = path.join(dir, 'tradebook.db');
  const tb = await openSqliteCompany(file);
  await tb.write(async () => {
    await tb.log.append(
      [1, 2].map((id) => ({ stream: `brand-${id}`, type: 'BrandAdded' as const, data: { id, name: `Бренд ${id}`, logo: null } })),
      { source: 'test' },
    );
    return ok(undefined);
  });
  tb.close();
  // As while a server runs: without it the -shm file would have to be created on the full disk.
  const holder = new Database(file);
  holder.prepare('SELECT count(*) FROM events').get();
  return { file, holder };
}

describe('storage faults, on a real small file system', () => {
  test('disk full: writes and token GETs are 503 ERROR_STORAGE_FULL with nothing applied, reads answer, logged once; freed, writes land again', async () => {
    const disk = smallDisk();
    if (!disk) return;
    const file = path.join(disk.dir, 'tradebook.db');
    const server = await startServer(file, KEY);
    try {
      const api = new HttpClient(server.url, KEY);
      expect((await api.write('/api/add-product-brand', 'brand', [{ name: 'До' }])).status).toBe(200);
      const token = (await api.request('GET', '/api/add-product-brand')).body.data.access_token;
      truncateWal(file);
      disk.fill();
      const events = eventCount(file);
      for (let i = 0; i < 5; i++) {
        for (const answer of [
          await api.request('GET', '/api/add-product-brand'),
          await api.request('POST', '/api/add-product-brand', JSON.stringify({ brand: [{ name: 'Полный диск' }] }), { 'X-Access-Token': token }),
        ]) {
          expect([answer.status, answer.body.errors[0].code]).toEqual([503, 'ERROR_STORAGE_FULL']);
        }
        const read = await api.request('GET', '/api/product-brands');
        expect([read.status, read.body.meta.allCount]).toEqual([200, 1]);
      }
      expect(eventCount(file)).toBe(events);
      // Several background checkpoint intervals pass while the disk stays full.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const faultLines = () => server.output().split('\n').filter((line) => /storage fault|fail/.test(line));
      expect(faultLines()).toHaveLength(1);
      expect(faultLines()[0]).toMatch(/storage fault: writes fail: the disk holding the database is full \(SQLITE_FULL/);
      expect(server.output()).not.toMatch(/ERROR_INTERNAL|SqliteError|\n\s+at /);

      disk.free();
      const again = await api.request('POST', '/api/add-product-brand', JSON.stringify({ brand: [{ name: 'Полный диск' }] }), { 'X-Access-Token': token });
      expect(again.status).toBe(200);
      expect(eventCount(file)).toBe(events + 1);
      await until(() => /writes succeed again/.test(server.output()));
      expect(server.output().match(/writes succeed again/g)).toHaveLength(1);
    } finally {
      await server.stop();
    }
  });

  test('a database on a read-only file system: the server refuses to start, with one line and exit 2', async () => {
    const disk = smallDisk();
    if (!disk) return;
    const file = path.join(disk.dir, 'tradebook.db');
    const { tb } = await testService({ file });
    tb.close();
    disk.remount('ro');
    try {
      const run = await serverUntilExit(file);
      expect(run.status).toBe(2);
      expect(run.stdout).not.toMatch(/listening/);
      expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^tradebook: cannot serve .*tradebook\.db: the database cannot be written: .*read-only \(EROFS/)]);
    } finally {
      disk.remount('rw');
    }
  });

  test('verify on a full disk (its scratch rebuild cannot be written): exit 2, "could not check", never "differ"', async () => {
    const disk = smallDisk();
    if (!disk) return;
    const { file, holder } = await loggedDatabase(disk.dir);
    try {
      disk.fill();
      const run = await runCli(file, ['verify']);
      expect(run.status).toBe(2);
      expect(run.stdout).toMatch(/^verify: COULD NOT CHECK: the disk holding the database is full/);
      expect(run.stdout + run.stderr).not.toMatch(/differ|\n\s+at /);
      disk.free();
      expect((await runCli(file, ['verify'])).status).toBe(0);
    } finally {
      holder.close();
    }
  });

  test('rebuild on a full disk: exit 2, one line on stderr, the served tables unchanged; verify passes once space is back', async () => {
    const disk = smallDisk();
    if (!disk) return;
    const { file, holder } = await loggedDatabase(disk.dir);
    try {
      const page = () => holder.prepare('SELECT * FROM product_brands ORDER BY id').all();
      const before = page();
      expect(before).toHaveLength(2);
      holder.pragma('wal_checkpoint(TRUNCATE)');
      disk.fill();
      const run = await runCli(file, ['rebuild']);
      expect(run.status).toBe(2);
      const lines = run.stderr.trim().split('\n').filter((line) => !line.startsWith('rebuild: '));
      expect(lines).toEqual([expect.stringMatching(/^tradebook: the disk holding the database is full \(SQLITE_FULL/)]);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(page()).toEqual(before);
      disk.free();
      expect(page()).toEqual(before);
      expect((await runCli(file, ['verify'])).status).toBe(0);
    } finally {
      holder.close();
    }
  });
});

test('a database folder that cannot be created: the server refuses to start, with one line and exit 2', async () => {
  const blocker = path.join(tempDir(), 'a-file');
  fs.writeFileSync(blocker, '');
  const run = await serverUntilExit(path.join(blocker, 'data', 'tradebook.db'));
  expect(run.status).toBe(2);
  expect(run.stdout).not.toMatch(/listening/);
  expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^tradebook: cannot serve .*: .*cannot create the folder/)]);
});
