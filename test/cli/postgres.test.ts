import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { NewEvent } from '../../src/events/rows.ts';
import { type PostgresDatabase, openPostgres } from '../../src/storage/postgres/connection.ts';
import { PostgresEventLog } from '../../src/storage/postgres/event-log.ts';
import { migrate } from '../../src/storage/postgres/migrate.ts';
import { PostgresWriter } from '../../src/storage/postgres/writer.ts';
import { openSqliteCompany, tempDir } from '../helpers.ts';
import { runCliHere } from '../cli-in-process.ts';
import { runCli as cli, runToExit } from '../server-process.ts';
import { REAL_SERVER_URL, createDatabase } from '../storage/postgres/engines.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('TRADEBOOK_DB=postgres://…: what does not run there is refused in one line, before connecting', () => {
  // A port that counts the connections made to it: a refusal must make none.
  let listener: net.Server;
  let connections = 0;
  let url: string;
  beforeAll(async () => {
    listener = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    url = `postgres://root@127.0.0.1:${(listener.address() as net.AddressInfo).port}/tradebook`;
  });
  afterAll(() => new Promise((resolve) => listener.close(resolve)));

  // The refusals are the command line's own handling, run in this process; the server's, as a process.
  test('tradebook backup points to PostgreSQL\'s own tools', async () => {
    const run = await runCliHere(url, ['backup', 'copy.db']);
    expect([run.status, run.stdout, run.stderr]).toEqual([2, '', 'tradebook: on PostgreSQL, back up with its own tools: pg_dump for a copy, or base backups with WAL archiving (README, "Running on PostgreSQL")\n']);
    expect(connections).toBe(0);
  });

  test('a database that cannot be reached: one line naming it (never its password), exit 2', async () => {
    const unreachable = 'postgres://root:secret@127.0.0.1:1/x';
    for (const args of [['keys', 'list'], ['keys', 'create'], ['events'], ['import', '-'], ['seed', '--demo']]) {
      const run = await runCliHere(unreachable, args, '');
      expect([run.status, run.stdout, run.stderr]).toEqual([2, '', 'tradebook: cannot connect to postgres://root:***@127.0.0.1:1/x: connect ECONNREFUSED 127.0.0.1:1\n']);
    }
    // The server says so before it listens.
    const server = await runToExit('bin/server.mjs', [], { TRADEBOOK_DB: unreachable, PORT: '0' });
    expect([server.status, server.stdout, server.stderr]).toEqual([
      2,
      '',
      'tradebook: cannot serve postgres://root:***@127.0.0.1:1/x: cannot connect to postgres://root:***@127.0.0.1:1/x: connect ECONNREFUSED 127.0.0.1:1\n',
    ]);
  });
});

describe('TRADEBOOK_DB=postgres://… that cannot be used: one line naming it, exit 2, never a stack trace', () => {
  const commands = [['keys', 'list'], ['events'], ['verify'], ['rebuild']];

  test('a URL the driver cannot parse (no host)', async () => {
    const url = 'postgres://root:secret@/tradebook';
    for (const args of commands) {
      const run = await runCliHere(url, args);
      expect([run.status, run.stdout, run.stderr]).toEqual([2, '', 'tradebook: cannot connect to postgres://root:***@/tradebook: Invalid URL\n']);
    }
    const server = await runToExit('bin/server.mjs', [], { TRADEBOOK_DB: url, PORT: '0' });
    expect([server.status, server.stdout, server.stderr]).toEqual([2, '', 'tradebook: cannot serve postgres://root:***@/tradebook: cannot connect to postgres://root:***@/tradebook: Invalid URL\n']);
  });

  test.runIf(REAL_SERVER_URL)('a setting the server does not know, named in the URL: it refuses the connection', async () => {
    const url = new URL(REAL_SERVER_URL!);
    url.searchParams.set('no_such_setting', 'on');
    const said = `cannot connect to ${url}: unrecognized configuration parameter "no_such_setting"`;
    for (const args of commands) {
      const run = await runCliHere(url.toString(), args);
      expect([run.status, run.stdout, run.stderr]).toEqual([2, '', `tradebook: ${said}\n`]);
    }
    const server = await runToExit('bin/server.mjs', [], { TRADEBOOK_DB: url.toString(), PORT: '0' });
    expect([server.status, server.stdout, server.stderr]).toEqual([2, '', `tradebook: cannot serve ${url}: ${said}\n`]);
  });
});

describe.runIf(REAL_SERVER_URL)('tradebook keys, events, history and anchor on a PostgreSQL server', () => {
  let admin: PostgresDatabase;
  let database: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    admin = openPostgres(REAL_SERVER_URL!, { poolSize: 1 });
    database = await createDatabase(admin);
  });
  afterAll(async () => {
    await database?.drop();
    await admin.close();
  });
  /** `work` on a new, empty database of its own, dropped after it. */
  const onFreshDatabase = async (work: (url: string) => Promise<void>) => {
    const fresh = await createDatabase(admin);
    try {
      await work(fresh.url);
    } finally {
      await fresh.drop();
    }
  };

  test('keys create, list, revoke: the same output and exit statuses as on SQLite; the empty database gets its schema', async () => {
    const steps = [
      ['keys', 'create', '--name', 'accounting', '--scope', 'audit', '--expires', '2030-01-01 00:00:00'],
      ['keys', 'create', '--json'],
      ['keys', 'list'],
      ['keys', 'revoke', '1'],
      ['keys', 'revoke', '7'],
      ['keys', 'list'],
      ['keys', 'list', '--json'],
    ];
    const transcript = async (db: string) => {
      const runs = [];
      for (const args of steps) runs.push(await runCliHere(db, args));
      // The keys and the times they were made at differ from run to run.
      return runs.map((run) => ({ ...run, stdout: run.stdout.replace(/tb_\w{40}/g, 'KEY').replace(/(?!2030-01-01 )\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\+03:00/g, 'NOW') }));
    };
    const onPostgres = await transcript(database.url);
    expect(onPostgres).toEqual(await transcript(path.join(tempDir(), 't.db')));
    expect(onPostgres.map((run) => run.status)).toEqual([0, 0, 0, 0, 2, 0, 0]);
    expect(onPostgres[4].stderr).toBe('tradebook: no key 7\n');
    const table = (stdout: string) => stdout.trim().split('\n').map((row) => row.split(/ {2,}/));
    const header = ['ID', 'NAME', 'SCOPE', 'STATE', 'CREATED', 'EXPIRES', 'REVOKED'];
    expect(table(onPostgres[2].stdout)).toEqual([header, ['1', 'accounting', 'audit', 'active', 'NOW', '2030-01-01 00:00:00+03:00', '-'], ['2', 'key', 'api', 'active', 'NOW', '-', '-']]);
    expect(table(onPostgres[5].stdout)).toEqual([header, ['1', 'accounting', 'audit', 'revoked', 'NOW', '2030-01-01 00:00:00+03:00', 'NOW'], ['2', 'key', 'api', 'active', 'NOW', '-', '-']]);
  });

  test('an import into a new, empty database: the same report and nothing else said as on SQLite (there was no log to build from)', () =>
    onFreshDatabase(async (url) => {
      const file = path.join(tempDir(), 'brands.ndjson');
      fs.writeFileSync(file, `${JSON.stringify({ type: 'product_brand', data: { id: 1, name: 'Acme' } })}\n`);
      // Each run has an id of its own.
      const imported = async (db: string) => {
        const run = await runCliHere(db, ['import', file]);
        return { ...run, stdout: run.stdout.replace(/\(import run \d{16}\)/, '(import run RUN)') };
      };
      const onPostgres = await imported(url);
      expect(onPostgres).toEqual(await imported(path.join(tempDir(), 't.db')));
      expect(onPostgres.stdout).toBe('1 lines: 1 applied, 0 failed, 1 events appended (import run RUN)\n');
      expect([onPostgres.status, onPostgres.stderr]).toEqual([0, '']);
    }));

  test('verify and copy from a database tradebook never opened: one line saying so, exit 2, nothing created there', () =>
    onFreshDatabase(async (url) => {
      for (const args of [['verify'], ['copy', '--to', path.join(tempDir(), 'c.db')]]) {
        const run = await runCliHere(url, args);
        expect([run.status, run.stdout, run.stderr]).toEqual([2, '', `tradebook: ${url} is not a tradebook database (it holds no event log)\n`]);
      }
      const inFresh = openPostgres(url, { poolSize: 1 });
      try {
        expect(await inFresh.pool.sql("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).toEqual([]);
      } finally {
        await inFresh.close();
      }
    }));

  test('a key created in a new database, then verify: OK, as on a new SQLite file (its read tables exist, empty)', () =>
    onFreshDatabase(async (url) => {
      const verified = async (db: string) => {
        expect((await runCliHere(db, ['keys', 'create'])).status).toBe(0);
        return runCliHere(db, ['verify']);
      };
      const onPostgres = await verified(url);
      expect(onPostgres).toEqual(await verified(path.join(tempDir(), 'new.db')));
      expect([onPostgres.status, onPostgres.stdout]).toEqual([0, expect.stringMatching(/^verify: OK: hash chain of 0 events intact; \d+ read tables equal a fresh rebuild\n$/)]);
    }));

  test('rebuild of a database nothing has opened: migrated and built as a new SQLite file is, verify passes after', () =>
    onFreshDatabase(async (url) => {
      const runs = async (db: string) => {
        // As processes: SQLite's rebuild runs on a thread of its own, from the built command line.
        const rebuild = await cli(db, ['rebuild']);
        const verify = await cli(db, ['verify']);
        return [rebuild, verify].map((run) => ({ ...run, stdout: run.stdout.replace(/in \d+(\.\d+)? s/, 'in T s'), stderr: run.stderr.replace(/\d+ events\/s/g, 'N events/s') }));
      };
      const onPostgres = await runs(url);
      expect(onPostgres).toEqual(await runs(path.join(tempDir(), 'fresh.db')));
      expect(onPostgres.map((run) => run.status)).toEqual([0, 0]);
      expect(onPostgres[1].stdout).toMatch(/^verify: OK: hash chain of 0 events intact; \d+ read tables equal a fresh rebuild\n$/);
    }));

  test('events, history and anchor: the same appends print the same lines from PostgreSQL as from SQLite, filtered alike, past a page', async () => {
    // One clock for both engines, moved between the batches so that --since has something to tell apart.
    const start = Date.parse('2026-11-25T10:00:00Z');
    const batches: NewEvent[][] = [
      Array.from({ length: 5_003 }, (_, i) => ({ stream: `brand-${i + 1}`, type: 'BrandAdded', data: { id: i + 1, name: `Бренд ${i + 1}`, logo: null } })),
      [
        { stream: 'brand-1', type: 'BrandEdited', data: { id: 1, name: 'nul \u0000 «кавычки» \u{1F600}' } },
        { stream: 'brand-2', type: 'BrandEdited', data: { id: 2, logo: 'b.png' } },
      ],
      [{ stream: 'brand-1', type: 'BrandEdited', data: { id: 1, logo: null } }],
    ];
    // A key neither database has (the keys test made some here): a history names it by id on both.
    const meta = (i: number) => ({ keyId: 9, source: 'import', importLine: i + 1 });

    let now = start;
    const sqlite = path.join(tempDir(), 't.db');
    const tb = await openSqliteCompany(sqlite, { clock: () => now });
    for (const [i, batch] of batches.entries()) {
      now = start + i * 60_000;
      await tb.writer.run(() => tb.log.append(batch, meta(i)));
    }
    tb.close();

    const pg = openPostgres(database.url);
    try {
      await migrate(pg.session);
      const writer = new PostgresWriter(pg.session);
      const log = new PostgresEventLog(writer, () => now);
      for (const [i, batch] of batches.entries()) {
        now = start + i * 60_000;
        await writer.run(() => log.append(batch, meta(i)));
      }
    } finally {
      await pg.close();
    }

    for (const [args, lines] of [
      [[], 5_006],
      [['--after', '4999'], 7],
      [['--stream', 'brand-1'], 3],
      [['--type', 'BrandEdited', '--after', '5004'], 2],
      [['--since', '2026-11-25 13:01:00'], 3],
      [['--since', '2026-11-25T10:02:00Z', '--stream', 'brand-1'], 1],
      [['--stream', 'brand-0'], 0],
    ] as const) {
      const fromPostgres = await runCliHere(database.url, ['events', ...args]);
      const fromSqlite = await runCliHere(sqlite, ['events', ...args]);
      expect(fromPostgres).toEqual(fromSqlite);
      expect([fromPostgres.status, fromPostgres.stdout.split('\n').length - 1]).toEqual([0, lines]);
    }

    // A record's history, each change before → after, and a stream with no events.
    for (const args of [['history', 'brand-1'], ['history', 'brand-1', '--json'], ['history', 'brand-2'], ['history', 'brand-0']]) {
      expect(await runCliHere(database.url, args)).toEqual(await runCliHere(sqlite, args));
    }
    // The log's head signed with an anchor key: the same head from both engines.
    const anchorKey = path.join(tempDir(), 'anchor.pem');
    expect((await runCliHere(database.url, ['anchor-key', anchorKey])).status).toBe(0);
    const anchored = async (db: string) => {
      const run = await runCliHere(db, ['anchor', '--key', anchorKey]);
      expect([run.status, run.stderr]).toEqual([0, '']);
      const { seq, hash, recordedAt } = JSON.parse(run.stdout);
      return { seq, hash, recordedAt };
    };
    expect(await anchored(database.url)).toEqual(await anchored(sqlite));
    expect((await anchored(database.url)).seq).toBe(5_006);

    const history = await runCliHere(database.url, ['history', 'brand-1']);
    expect([history.status, history.stdout.split('\n').length - 1]).toEqual([0, 3]);
    expect(history.stdout).toContain('key 9  name: "Бренд 1" → "nul \\u0000 «кавычки» \u{1F600}"');
  });
});

/**
 * The copies and verifies run as processes (a SQLite file's read tables are built on a thread of the built command
 * line); what only reads a database (events, keys list) or is refused before a row is copied runs in this process.
 */
describe.runIf(REAL_SERVER_URL)('tradebook copy from PostgreSQL back into a SQLite file, as processes', () => {
  let admin: PostgresDatabase;
  const databases: { url: string; drop(): Promise<void> }[] = [];
  let dir: string;
  /** A SQLite tradebook with a demo company and two keys (one with an expiry, revoked). */
  let first: string;
  let firstEvents: string;
  /** What `keys list`, with and without --json, prints of the first file. */
  const firstKeys = new Map<string, { status: number; stdout: string; stderr: string }>();
  let last: { seq: number; hash: string };
  /** A database on the server holding the first file's company, copied up once: the tests only read it. */
  let url: string;
  beforeAll(async () => {
    admin = openPostgres(REAL_SERVER_URL!, { poolSize: 1 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradebook-test-'));
    first = path.join(dir, 'first.db');
    expect((await cli(first, ['seed', '--demo', '--products', '30', '--contractors', '8', '--documents', '300'])).status).toBe(0);
    for (const args of [
      ['keys', 'create', '--name', 'bookkeeper'],
      ['keys', 'create', '--name', 'auditor', '--scope', 'audit', '--expires', '2030-01-01 00:00:00'],
      ['keys', 'revoke', '2'],
    ]) {
      expect((await runCliHere(first, args)).status).toBe(0);
    }
    firstEvents = (await runCliHere(first, ['events'])).stdout;
    const { seq, hash } = JSON.parse(firstEvents.trimEnd().split('\n').at(-1)!);
    last = { seq, hash };
    for (const args of [['keys', 'list'], ['keys', 'list', '--json']]) firstKeys.set(args.join(' '), await runCliHere(first, args));
    const database = await createDatabase(admin);
    databases.push(database);
    expect((await cli(first, ['copy', '--to', database.url])).status).toBe(0);
    url = database.url;
  }, 120_000);
  afterAll(async () => {
    for (const database of databases) await database.drop();
    await admin?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  test('up to PostgreSQL and back down into a new file: the same events and keys, the read tables built, verify passes there', async () => {
    const back = path.join(dir, 'back.db');
    const run = await cli(url, ['copy', '--to', back]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(
        `^copied ${last.seq} events and 2 keys from ${escaped(url)} to ${escaped(back)} in [\\d.]+ s; last seq ${last.seq}, hash ${last.hash}; its hash chain recomputes there and ends at the same hash\n` +
          'its read tables are built: tradebook can serve it\n$',
      ),
    );
    expect(run.stderr).toContain(`build: the read tables of ${back}\n`);
    expect(await runCliHere(back, ['events'])).toEqual({ status: 0, stdout: firstEvents, stderr: '' });
    for (const args of [['keys', 'list'], ['keys', 'list', '--json']]) {
      const listed = await runCliHere(back, args);
      expect(listed).toEqual(firstKeys.get(args.join(' ')));
      expect(listed.stdout).toContain('auditor');
    }
    const verified = await cli(back, ['verify']);
    expect([verified.status, verified.stderr]).toEqual([0, '']);
    expect(verified.stdout).toMatch(new RegExp(`^verify: OK: hash chain of ${last.seq} events intact; \\d+ read tables equal a fresh rebuild\n$`));

    // --json, into a file that is there and empty (a tradebook opened once, with its tables and no event or key).
    const empty = path.join(dir, 'empty.db');
    (await openSqliteCompany(empty)).close();
    const json = await cli(url, ['copy', '--to', empty, '--json']);
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ from: url, to: empty, events: last.seq, keys: 2, seq: last.seq, hash: last.hash, seconds: expect.any(Number), ok: true });
    expect((await runCliHere(empty, ['events'])).stdout).toBe(firstEvents);
    expect((await cli(empty, ['verify'])).status).toBe(0);
  });

  test('between two databases of one engine: PostgreSQL into another, a SQLite file into another', async () => {
    const second = await createDatabase(admin);
    databases.push(second);
    expect((await cli(url, ['copy', '--to', second.url])).status).toBe(0);
    const copy = path.join(dir, 'copy.db');
    expect((await cli(first, ['copy', '--to', copy])).status).toBe(0);
    for (const db of [second.url, copy]) {
      expect(await runCliHere(db, ['events'])).toEqual({ status: 0, stdout: firstEvents, stderr: '' });
      expect(await runCliHere(db, ['keys', 'list'])).toEqual(firstKeys.get('keys list'));
    }
    expect((await cli(copy, ['verify'])).status).toBe(0);
  });

  test('a file holding an event, or a key and no event, is refused in one line, exit 2, and left as it was', async () => {
    const withEvents = path.join(dir, 'with-events.db');
    fs.copyFileSync(first, withEvents);
    const withAKey = path.join(dir, 'with-a-key.db');
    expect((await runCliHere(withAKey, ['keys', 'create'])).status).toBe(0);
    for (const [target, held] of [
      [withEvents, `${last.seq} events, 2 keys`],
      [withAKey, '0 events, 1 keys'],
    ]) {
      const before = fs.readFileSync(target);
      expect(await runCliHere(url, ['copy', '--to', target])).toEqual({
        status: 2,
        stdout: '',
        stderr: `tradebook: cannot copy to ${target}: it is not empty (${held}); a copy goes only into an empty database\n`,
      });
      expect(fs.readFileSync(target).equals(before)).toBe(true);
    }
  });

  test('a database onto itself, however named, and a source server not there: one line, exit 2, nothing written', async () => {
    const before = fs.readFileSync(first);
    const link = path.join(dir, 'link.db');
    fs.symlinkSync(first, link);
    for (const [from, to] of [
      [url, url],
      [url, url.replace('postgres://', 'postgresql://').replace(':5432/', '/')],
      [first, first],
      [first, path.relative(ROOT, first)],
      [first, link],
    ]) {
      expect(await runCliHere(from, ['copy', '--to', to])).toEqual({ status: 2, stdout: '', stderr: `tradebook: TRADEBOOK_DB and --to are the same database, ${from}: a copy goes into another one\n` });
    }
    expect(fs.readFileSync(first).equals(before)).toBe(true);
    expect((await runCliHere(url, ['events'])).stdout).toBe(firstEvents);

    const target = path.join(dir, 'never.db');
    expect(await runCliHere('postgres://root:secret@127.0.0.1:1/x', ['copy', '--to', target])).toEqual({
      status: 2,
      stdout: '',
      stderr: 'tradebook: cannot read postgres://root:***@127.0.0.1:1/x: connect ECONNREFUSED 127.0.0.1:1\n',
    });
    expect(fs.existsSync(target)).toBe(false);
  });
});
