import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Hono } from 'hono';
import { inject, vi } from 'vitest';
import { createApp } from '../src/http/app.ts';
import type { AppEnv } from '../src/http/env.ts';
import type { Clock } from '../src/lib/clock.ts';
import { Company } from '../src/company.ts';
import type { EngineOptions } from '../src/storage/engine.ts';
import { SqliteEngine } from '../src/storage/sqlite/engine.ts';
import type { Sqlite } from '../src/storage/sqlite/open.ts';
import type { KeyCacheSettings } from '../src/tokens/key-cache.ts';
import { dumpReadTables } from './read-tables.ts';
import { afterThisTest } from './cleanups.ts';
import { type Response, readResponse } from './server-process.ts';
import { releaseReadModels as readModels } from '../src/company.ts';
import type { LiveReadModels } from '../src/storage/read-tables.ts';

export type { Response };

/** A clock tests move by hand: token expiry is tested without sleeping. */
export function manualClock(start = Date.parse('2026-11-22T09:00:00Z')): Clock & { advance(ms: number): void; set(ms: number): void } {
  let now = start;
  const clock = (() => now) as Clock & { advance(ms: number): void; set(ms: number): void };
  clock.advance = (ms) => {
    now += ms;
  };
  clock.set = (ms) => {
    now = ms;
  };
  return clock;
}

/** A fresh directory removed after the test. */
export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradebook-test-'));
  afterThisTest(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A small file system of its own (a tmpfs, mounted as root) that tests fill up or make read-only. */
export interface SmallDisk {
  dir: string;
  /** Writes a filler file until the file system is full. */
  fill(): void;
  /** Removes the filler. */
  free(): void;
  remount(mode: 'ro' | 'rw'): void;
}

/**
 * A SmallDisk, unmounted after the test; undefined (said on stderr) where mounting is not permitted, and the
 * caller's mount-based part is skipped.
 */
export function smallDisk(size = '4m'): SmallDisk | undefined {
  const dir = path.join(tempDir(), 'disk');
  fs.mkdirSync(dir);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    process.stderr.write(`mounting a tmpfs is not permitted here (${String((error as Error).message).split('\n')[0]}): the mount-based part is skipped\n`);
    return undefined;
  }
  // Registered after tempDir's removal, so it runs before it.
  afterThisTest(() => execFileSync('umount', ['-l', dir], { stdio: 'pipe' }));
  const filler = path.join(dir, 'filler');
  return {
    dir,
    fill() {
      const fd = fs.openSync(filler, 'a');
      try {
        for (const size of [1 << 16, 4096, 512]) {
          try {
            for (;;) fs.writeSync(fd, Buffer.alloc(size));
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          }
        }
      } finally {
        fs.closeSync(fd);
      }
    },
    free: () => fs.rmSync(filler, { force: true }),
    remount: (mode) => execFileSync('mount', ['-o', `remount,${mode}`, dir], { stdio: 'pipe' }),
  };
}

/** Talks to the app the way a client does: JSON in, JSON out, the key on every request. */
export class ApiClient {
  constructor(
    readonly app: Hono<AppEnv>,
    readonly key: string,
  ) {}

  async request(method: string, url: string, options: { body?: unknown; raw?: string | Uint8Array; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.key}`, ...options.headers };
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (body !== undefined) headers['Content-Type'] ??= 'application/json';
    return readResponse(await this.app.request(url, { method, headers, body: body as BodyInit | undefined }));
  }

  get(url: string, headers?: Record<string, string>): Promise<Response> {
    return this.request('GET', url, { headers });
  }

  async token(writePath: string): Promise<string> {
    const res = await this.get(writePath);
    if (res.status !== 200) throw new Error(`token for ${writePath}: ${res.status} ${res.text}`);
    return res.body.data.access_token;
  }

  post(url: string, body: unknown, token?: string): Promise<Response> {
    return this.request('POST', url, { body, headers: token === undefined ? {} : { 'X-Access-Token': token } });
  }

  /** Both steps of a write: a token, then the batch under its wrapper key. */
  async write(writePath: string, wrapper: string, records: unknown[]): Promise<Response> {
    return this.post(writePath, { [wrapper]: records }, await this.token(writePath));
  }
}

/** A company on SQLite as tests see it: with the engine's writer connection and read models to look underneath. */
/** A company on a SQLite file, as tests hold it: with every row of its read tables at hand (`readTables`). */
export type SqliteCompany = Company<SqliteEngine> & { readonly db: Sqlite; readonly projections: LiveReadModels; readTables(): Record<string, unknown[]> };

/**
 * The company in the SQLite file `file`, opened as the server opens it; `onRebuilt` hears the names of the read
 * models rebuilt at open.
 */
export async function openSqliteCompany(
  file: string,
  options: EngineOptions & { keyCache?: KeyCacheSettings; onRebuilt?: (names: string[]) => void } = {},
): Promise<SqliteCompany> {
  const { onRebuilt, ...engineOptions } = options;
  const engine = await SqliteEngine.open(file, readModels, engineOptions);
  const tb = await Company.over(engine, { ...engineOptions, onBuilt: onRebuilt && ((_, names) => onRebuilt(names)) });
  return Object.assign(tb, { db: engine.db, projections: engine.projections, readTables: () => dumpReadTables(engine.db) });
}

export interface TestService {
  tb: SqliteCompany;
  app: Hono<AppEnv>;
  api: ApiClient;
  key: string;
  file: string;
}

/** A new database file for a test: a copy of the run's migrated template (test/sqlite-template.ts) where there is one. */
function newDatabaseFile(): string {
  const file = path.join(tempDir(), 'tradebook.db');
  const template = inject('sqliteTemplate');
  if (template !== undefined) fs.copyFileSync(template, file);
  return file;
}

/** A tradebook on a fresh database file, with one API key and a client holding it; closed after the test. */
export async function testService(options: { clock?: Clock; file?: string; trace?: (sql: string) => void; onStorageFault?: (line: string) => void } = {}): Promise<TestService> {
  const file = options.file ?? newDatabaseFile();
  const tb = await openSqliteCompany(file, { clock: options.clock, trace: options.trace, onStorageFault: options.onStorageFault });
  afterThisTest(() => tb.close());
  const { key } = await tb.keys.create({ name: 'test' });
  const app = createApp(tb);
  return { tb, app, api: new ApiClient(app, key), key, file };
}

/** Holds every `fs.fsync` until the test releases it. */
export function holdFsyncs() {
  const real = fs.fsync;
  const waiting: { fd: number; release: () => void }[] = [];
  const spy = vi.spyOn(fs, 'fsync').mockImplementation(((fd: number, callback: (error: Error | null) => void) =>
    waiting.push({ fd, release: () => real(fd, callback) })) as unknown as typeof fs.fsync);
  return { waiting, restore: () => spy.mockRestore() };
}

/** Makes every `fs.fsync` fail with EIO, as a failing disk would; returns the restore. */
export function failFsyncs(): () => void {
  const spy = vi.spyOn(fs, 'fsync').mockImplementation(((_fd: number, callback: (error: Error | null) => void) =>
    callback(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }))) as unknown as typeof fs.fsync);
  return () => spy.mockRestore();
}

/** Waits (polling) until `condition` holds; fails after `ms`. */
export async function until(condition: () => boolean, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
