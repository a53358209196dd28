import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GENESIS_HASH, chainHash } from '../../src/events/hash.ts';
import { ConcurrencyError, type NewEvent } from '../../src/events/rows.ts';
import type { DatabaseSetting } from '../../src/storage/database.ts';
import type { Engine, EngineOptions } from '../../src/storage/engine.ts';
import { projectors } from '../../src/projections/registry.ts';
import { StorageFault } from '../../src/storage/errors.ts';
import { openStored } from '../../src/storage/open-engine.ts';
import { PostgresEngine } from '../../src/storage/postgres/engine.ts';
import { SqliteEngine } from '../../src/storage/sqlite/engine.ts';
import { tempDir } from '../helpers.ts';
import { describeEngines } from './postgres/engines.ts';
import { releaseReadModels as readModels } from '../../src/company.ts';
import { auditReads } from '../../src/audit/reads.ts';
import { type OnBuilt, bringUp } from '../../src/read-models/open.ts';
import { rebuild } from '../../src/read-models/rebuild.ts';
import { staleReadModels } from '../../src/read-models/stale.ts';
import { verify } from '../../src/read-models/verify.ts';

/**
 * The engine port's contract (`src/storage/engine.ts`): the same behaviours asked of every adapter, on SQLite, on
 * PGlite, and on the server TRADEBOOK_TEST_POSTGRES_URL names when it is set. Each test opens an engine on an
 * empty database, as a company would (migrated, its read tables brought up by the read-models layer, which also
 * rebuilds and verifies them through the engine's `readTables`): a copy of one migrated once (SQLite), or the
 * suite's database migrated once and emptied of its rows before each test (PostgreSQL).
 */

const brand = (id: number, name: string, expectedVersion?: NewEvent['expectedVersion']): NewEvent =>
  ({ stream: `brand-${id}`, type: 'BrandAdded', data: { id, name, logo: null }, ...(expectedVersion !== undefined && { expectedVersion }) }) as NewEvent;
const renamed = (id: number, name: string, expectedVersion?: NewEvent['expectedVersion']): NewEvent =>
  ({ stream: `brand-${id}`, type: 'BrandEdited', data: { id, name }, ...(expectedVersion !== undefined && { expectedVersion }) }) as NewEvent;

interface Opened {
  engine: Engine;
  /** The database as a setting, where it has one a command could name (not PGlite's, which lives in this process). */
  setting?: DatabaseSetting;
  /** The same database opened again, where it can be (not PGlite's: the test's handle is its only one). */
  reopen?: (options: EngineOptions & { onBuilt?: OnBuilt }) => Promise<Engine>;
}

function contract(open: () => Promise<Opened>): void {
  const opened: Engine[] = [];
  const openEngine = async () => {
    const it = await open();
    opened.push(it.engine);
    return it;
  };
  const append = (engine: Engine, events: NewEvent[]) => engine.writer.run(() => engine.log.append(events, { keyId: 1 }));
  const brands = (engine: Engine) => engine.readOn.objects<{ id: number; name: string }>('SELECT id, name FROM product_brands ORDER BY id');
  const stale = (engine: Engine) => staleReadModels(readModels, engine.readOn);
  const verified = (engine: Engine) => engine.readTables.fresh((fresh) => verify(readModels, fresh));
  const closeAll = async () => {
    for (const engine of opened.splice(0)) await engine.close();
  };

  test('appends with expected versions: a stale one is refused with nothing applied, the log and read tables move together', async () => {
    const { engine } = await openEngine();
    try {
      await append(engine, [brand(1, 'A', 'no_stream'), brand(2, 'B')]);
      await expect(append(engine, [brand(3, 'C'), brand(1, 'again', 'no_stream')])).rejects.toThrow(ConcurrencyError);
      await expect(append(engine, [renamed(1, 'A2', 2)])).rejects.toThrow(ConcurrencyError);
      await append(engine, [renamed(1, 'A2', 1), renamed(2, 'B2', 'stream_exists')]);
      expect(await auditReads(engine.readOn).lastSeq()).toBe(4);
      expect(await brands(engine)).toEqual([
        { id: 1, name: 'A2' },
        { id: 2, name: 'B2' },
      ]);
    } finally {
      await closeAll();
    }
  });

  test('the log is a hash chain over every column, seq dense from 1, each stream versioned from 1', async () => {
    const { engine } = await openEngine();
    try {
      await append(engine, [brand(1, 'A'), brand(2, 'B')]);
      await append(engine, [renamed(1, 'A2')]);
      const rows = await auditReads(engine.readOn).eventsAfter(0, 100);
      expect(rows.map((row) => [row.seq, row.stream, row.stream_version])).toEqual([
        [1, 'brand-1', 1],
        [2, 'brand-2', 1],
        [3, 'brand-1', 2],
      ]);
      let previous = GENESIS_HASH;
      for (const row of rows) {
        expect(row.hash).toBe(chainHash(previous, row));
        expect(await auditReads(engine.readOn).hashAt(row.seq)).toBe(row.hash);
        previous = row.hash;
      }
      expect(await auditReads(engine.readOn).hashAt(4)).toBeUndefined();
    } finally {
      await closeAll();
    }
  });

  test('reads after a seq, a page at a time, by stream and type, and one stream in version order', async () => {
    const { engine } = await openEngine();
    try {
      await append(engine, [brand(1, 'A'), brand(2, 'B'), renamed(1, 'A2'), renamed(2, 'B2'), renamed(1, 'A3')]);
      expect((await auditReads(engine.readOn).eventsAfter(2, 2)).map((row) => row.seq)).toEqual([3, 4]);
      expect((await auditReads(engine.readOn).eventsAfter(0, 10, { stream: 'brand-1' })).map((row) => row.seq)).toEqual([1, 3, 5]);
      expect((await auditReads(engine.readOn).eventsAfter(1, 10, { type: 'BrandAdded' })).map((row) => row.seq)).toEqual([2]);
      const stream = await auditReads(engine.readOn).streamVersions('brand-1', 1, Number.MAX_SAFE_INTEGER);
      expect(stream.map((event) => [event.streamVersion, event.type, (event.data as { name: string }).name])).toEqual([
        [1, 'BrandAdded', 'A'],
        [2, 'BrandEdited', 'A2'],
        [3, 'BrandEdited', 'A3'],
      ]);
    } finally {
      await closeAll();
    }
  });

  test("the writer's units: those arriving together share a group, each settles with its value, one that fails is undone alone", async () => {
    const { engine } = await openEngine();
    try {
      const units = [
        engine.writer.run(async () => (await engine.log.append([brand(1, 'A')], {})).length),
        engine.writer.run(async () => {
          await engine.log.append([brand(2, 'B')], {});
          throw new Error('this unit fails');
        }),
        engine.writer.run(async () => (await engine.log.append([brand(3, 'C')], {}))[0].seq),
      ];
      const settled = await Promise.allSettled(units);
      expect(settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as Error).message))).toEqual([1, 'this unit fails', 2]);
      await engine.writer.durable();
      expect((await brands(engine)).map((row) => row.id)).toEqual([1, 3]);
      expect((await auditReads(engine.readOn).eventsAfter(0, 10)).map((row) => row.stream)).toEqual(['brand-1', 'brand-3']);
      // A unit decides on what its group has written so far.
      const seen = await engine.writer.run(async () => {
        await engine.log.append([brand(4, 'D')], {});
        return engine.decideOn.value<number>('SELECT count(*) FROM product_brands');
      });
      expect(Number(seen)).toBe(3);
    } finally {
      await closeAll();
    }
  });

  test('names its storage errors: a storage fault as itself, any other error as none', async () => {
    const { engine } = await openEngine();
    try {
      const fault = new StorageFault('full', 'no space');
      expect(engine.storageErrorOf(fault)).toBe(fault);
      expect(engine.storageErrorOf(new Error('a bug'))).toBeUndefined();
      expect(engine.storageErrorOf(undefined)).toBeUndefined();
    } finally {
      await closeAll();
    }
  });

  test('keys, tokens and sessions: stored by hash, listed, counted; a token spent once; a key revoked once', async () => {
    const { engine } = await openEngine();
    try {
      const key = { name: 'k', scope: 'api' as const, keyHash: 'h1', created: '2026-11-27T00:00:00.000Z', expires: null };
      const id = await engine.writer.run(() => engine.keys.insert(key));
      expect(await engine.writer.run(() => engine.keys.insert({ ...key, name: 'k2', keyHash: 'h2' }))).toBe(id + 1);
      expect(await engine.keys.byHash('h1')).toEqual({ ...key, id, revoked: null });
      expect((await engine.keys.list()).map((listed) => listed.name)).toEqual(['k', 'k2']);
      expect(await engine.writer.run(() => engine.keys.revoke(id, '2026-11-27T01:00:00.000Z'))).toBe(true);
      await engine.writer.run(() => engine.keys.revoke(id, '2026-11-27T02:00:00.000Z'));
      expect((await engine.keys.byId(id))?.revoked).toBe('2026-11-27T01:00:00.000Z');
      expect(await engine.writer.run(() => engine.keys.revoke(999, '2026-11-27T01:00:00.000Z'))).toBe(false);
      expect(await engine.keys.count()).toBe(2);

      await engine.writer.run(() => engine.tokens.insert('t1', { keyId: id, path: '/api/add-product-brand', expiresAt: 2000 }, 1000));
      expect(await engine.writer.run(() => engine.tokens.spend('t1', 'body', '{"ok":true}'))).toBe(true);
      expect(await engine.writer.run(() => engine.tokens.spend('t1', 'body', '{"ok":true}'))).toBe(false);
      expect(await engine.tokens.byHash('t1')).toEqual({ keyId: id, path: '/api/add-product-brand', expiresAt: 2000, bodyHash: 'body', response: '{"ok":true}' });
      // A new token sweeps the expired ones.
      await engine.writer.run(() => engine.tokens.insert('t2', { keyId: id, path: '/api/add-product-brand', expiresAt: 5000 }, 3000));
      expect(await engine.tokens.count()).toBe(1);

      const session = { keyId: id, created: 1000, lastSeen: 1000, ends: 9000 };
      await engine.writer.run(() => engine.sessions.insert('s1', session, 1000, 0, 20));
      await engine.writer.run(() => engine.sessions.touch('s1', 1500));
      // With its key as it stands now: revoked above.
      expect(await engine.sessions.byHash('s1')).toEqual({ ...session, lastSeen: 1500, key: { ...key, id, revoked: '2026-11-27T01:00:00.000Z' } });
      await engine.writer.run(() => engine.sessions.insert('s2', { ...session, keyId: 999 }, 1000, 0, 20));
      expect(await engine.sessions.byHash('s2')).toEqual({ ...session, keyId: 999, key: undefined });
      // Past the cap per key the key's oldest sessions end (two of the same moment by their hash); others' stay.
      for (const [hash, created] of [['s3', 1100], ['s4', 1200], ['s5', 1200]] as const) {
        await engine.writer.run(() => engine.sessions.insert(hash, { ...session, created }, created, 0, 3));
      }
      expect(await Promise.all(['s1', 's2', 's3', 's4', 's5'].map(async (hash) => (await engine.sessions.byHash(hash)) !== undefined))).toEqual([false, true, true, true, true]);
      await engine.writer.run(() => engine.sessions.insert('s6', { ...session, created: 1300 }, 1300, 0, 2));
      expect(await Promise.all(['s3', 's4', 's5', 's6'].map(async (hash) => (await engine.sessions.byHash(hash)) !== undefined))).toEqual([false, false, true, true]);
      for (const hash of ['s2', 's5', 's6']) await engine.writer.run(() => engine.sessions.delete(hash));
      expect(await engine.sessions.count()).toBe(0);
    } finally {
      await closeAll();
    }
  });

  test('build beside and swap: a rebuild replays the log into tables equal to the served ones, which stay current', async () => {
    const { engine } = await openEngine();
    try {
      await append(engine, [brand(1, 'A'), brand(2, 'B')]);
      await append(engine, [renamed(2, 'B2')]);
      const before = await brands(engine);
      expect(await rebuild(readModels, await engine.readTables.beside())).toEqual({ events: 3 });
      expect(await brands(engine)).toEqual(before);
      expect(await stale(engine)).toEqual([]);
      await append(engine, [brand(3, 'C')]);
      expect((await brands(engine)).map((row) => row.name)).toEqual(['A', 'B2', 'C']);
    } finally {
      await closeAll();
    }
  });

  test('read tables behind the log are caught up at open, without a word', async ({ skip }) => {
    const { engine, reopen } = await openEngine();
    if (!reopen) skip('the database cannot be opened again (PGlite)');
    try {
      await append(engine, [brand(1, 'A'), brand(2, 'B')]);
      await append(engine, [renamed(2, 'B2')]);
      const before = await brands(engine);
      // As if the events had been appended without their read rows: the tables emptied, the checkpoints at the start.
      await engine.writer.run(async () => {
        for (const table of projectors.flatMap((p) => p.tables)) await engine.decideOn.run(`DELETE FROM "${table}"`);
        await engine.decideOn.run('UPDATE projection_checkpoints SET last_seq = 0');
      });
      await engine.close();
      opened.splice(opened.indexOf(engine), 1);
      const lines: string[] = [];
      const again = await reopen!({ onBuilt: (line) => lines.push(line) });
      opened.push(again);
      expect(lines).toEqual([]);
      expect(await brands(again)).toEqual(before);
      expect(await stale(again)).toEqual([]);
    } finally {
      await closeAll();
    }
  });

  test('snapshot: verify walks the chain and finds a read-table row that differs from a fresh build', async () => {
    const { engine } = await openEngine();
    try {
      await append(engine, [brand(1, 'A'), brand(2, 'B')]);
      const checked = await verified(engine);
      expect(checked.chain).toEqual({ ok: true, events: 2 });
      expect(checked.projections).toMatchObject({ ok: true, differences: [] });
      await engine.writer.run(() => engine.decideOn.run("UPDATE product_brands SET name = 'edited' WHERE id = 2"));
      const after = await verified(engine);
      expect(after.chain.ok).toBe(true);
      expect(after.projections.differences).toEqual(['table product_brands: live rows not in a fresh rebuild: 1, rebuilt rows not live: 1; first: id 2']);
    } finally {
      await closeAll();
    }
  });

  test('copy: the database as it is gives its log and keys in one snapshot, rows as stored', async ({ skip }) => {
    const { engine, setting } = await openEngine();
    if (!setting) skip('the database has no setting a command could name (PGlite)');
    try {
      await engine.writer.run(() => engine.keys.insert({ name: 'k', scope: 'api', keyHash: 'h', created: '2026-11-27T00:00:00.000Z', expires: null }));
      await append(engine, [brand(1, 'A'), brand(2, 'B')]);
      const stored = openStored(setting!);
      try {
        const source = await stored.copySource();
        const rows = [];
        for await (const row of source.events) rows.push(row);
        expect(rows).toEqual(await auditReads(engine.readOn).eventsAfter(0, 100));
        expect([source.count, source.pointInTime, source.keys.map((key) => key.keyHash)]).toEqual([2, undefined, ['h']]);
        // Written after the snapshot: not in it.
        await append(engine, [brand(3, 'C')]);
        expect(source.count).toBe(2);
      } finally {
        await stored.close();
      }
    } finally {
      await closeAll();
    }
  });
}

/** An engine opened with this release's read models, its read tables brought up as a company's are. */
async function broughtUp(opening: Promise<Engine>, onBuilt?: OnBuilt): Promise<Engine> {
  const engine = await opening;
  await bringUp(engine, readModels, onBuilt);
  return engine;
}

describe('the engine contract (SQLite)', () => {
  // Migrated once, its read tables built: each test's database is a copy of it instead of one migrated again.
  const migrated = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tradebook-contract-')), 'migrated.db');
  beforeAll(async () => {
    await (await broughtUp(SqliteEngine.open(migrated, readModels))).close();
    // Closed, its log written back: the file alone is the whole database.
    expect(fs.existsSync(`${migrated}-wal`)).toBe(false);
  });
  afterAll(() => fs.rmSync(path.dirname(migrated), { recursive: true, force: true }));
  contract(async () => {
    const file = path.join(tempDir(), 'contract.db');
    fs.copyFileSync(migrated, file);
    return { engine: await broughtUp(SqliteEngine.open(file, readModels)), setting: { engine: 'sqlite', file }, reopen: (options) => broughtUp(SqliteEngine.open(file, readModels, options), options.onBuilt) };
  });
});

describeEngines('the engine contract', (database) => {
  contract(async () => {
    const db = database();
    const { url } = db;
    return {
      engine: await broughtUp(PostgresEngine.on(db, readModels)),
      setting: url === undefined ? undefined : { engine: 'postgres', url },
      reopen: url === undefined ? undefined : (options) => broughtUp(PostgresEngine.open(url, readModels, options), options.onBuilt),
    };
  });
}, { migrate: async (db) => (await broughtUp(PostgresEngine.on(db, readModels))).close() });
