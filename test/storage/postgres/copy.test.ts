import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { writePointInTime } from '../../../src/audit/point-in-time.ts';
import { verifyChain } from '../../../src/audit/verify-chain.ts';
import { GENESIS_HASH } from '../../../src/events/hash.ts';
import type { EventRow } from '../../../src/events/rows.ts';
import { readEvents as readSqliteEvents } from '../../../src/storage/sqlite/event-log.ts';
import { demoCompany } from '../../../src/seed/demo-company.ts';
import { SourceIsPointInTimeError, TargetNotEmptyError } from '../../../src/storage/copy.ts';
import { type Sql, openPostgres } from '../../../src/storage/postgres/connection.ts';
import { postgresCopySource } from '../../../src/storage/postgres/copy-source.ts';
import { postgresCopyTarget } from '../../../src/storage/postgres/copy-target.ts';
import { PostgresEventLog, readEvents } from '../../../src/storage/postgres/event-log.ts';
import { migrate } from '../../../src/storage/postgres/migrate.ts';
import { PostgresWriter } from '../../../src/storage/postgres/writer.ts';
import { sqliteCopySource } from '../../../src/storage/sqlite/copy-source.ts';
import { sqliteCopyTarget } from '../../../src/storage/sqlite/copy-target.ts';
import { kyselyOf, migrate as migrateSqlite } from '../../../src/storage/sqlite/migrate.ts';
import { openSqlite } from '../../../src/storage/sqlite/open.ts';
import { copyCompany } from '../../../src/use-cases/copy-company.ts';
import { importRecords } from '../../../src/use-cases/import.ts';
import { openSqliteCompany } from '../../helpers.ts';
import { runCliHere } from '../../cli-in-process.ts';
import { runCli } from '../../server-process.ts';
import { type TestDatabase, describeEngines } from './engines.ts';
import { all } from './log-checks.ts';
import { releaseReadModels as readModels } from '../../../src/company.ts';
import { servedBuild } from '../../../src/read-models/build.ts';

/** Over 2,000 events: the log goes in with more than one statement. */
const SIZES = { products: 100, contractors: 20, documents: 2000 };

let dir: string;
let file: string;
let sourceEvents: EventRow[];

/** A SQLite tradebook with a demo company, two keys (one revoked) and an access token, for every test of the file. */
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradebook-test-'));
  file = path.join(dir, 'source.db');
  const tb = await openSqliteCompany(file);
  try {
    let line = 0;
    const report = await importRecords(tb, [...demoCompany(7, SIZES)].map((value) => ({ line: ++line, value })), () => {}, { linesPerGroup: 5000 });
    expect(report.failed).toBe(0);
    const { id } = await tb.keys.create({ name: 'bookkeeper' });
    const { id: auditor } = await tb.keys.create({ name: 'auditor', scope: 'audit', expiresAt: Date.parse('2027-01-01T00:00:00Z') });
    await tb.keys.revoke(auditor);
    await tb.writer.run(() => tb.tokens.issue(id, '/api/add-product-brand'));
    sourceEvents = [...readSqliteEvents(tb.db)];
  } finally {
    tb.close();
  }
  expect(sourceEvents.length).toBeGreaterThan(2000);
}, 120_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The source's keys as stored, and whatever a database's keys are, in the same shape. */
const KEYS = 'SELECT id, name, scope, key_hash AS "keyHash", created_at AS created, expires_at AS expires, revoked_at AS revoked FROM api_keys ORDER BY id';

function source() {
  const db = openSqlite(file, { readonly: true });
  return { db, copy: sqliteCopySource(db) };
}

/** A point-in-time copy of the source up to `until`, in a file of its own: its path. */
async function pointInTimeOfSource(until: number): Promise<string> {
  const pointInTime = path.join(dir, `until-${until}-${Math.random()}.db`);
  const { db, copy } = source();
  try {
    await writePointInTime(await copy, file, until, pointInTime, servedBuild(readModels, until));
  } finally {
    db.close();
  }
  return pointInTime;
}

async function copyInto(target: TestDatabase) {
  const { db, copy } = source();
  try {
    return await copyCompany(await copy, postgresCopyTarget(target));
  } finally {
    db.close();
  }
}

/** What a database holds of a company: its log, keys, tokens and chain head. */
async function contents(sql: Sql) {
  return {
    events: await all(readEvents(sql)),
    keys: await sql.sql(KEYS),
    tokens: await sql.sql('SELECT token_hash FROM access_tokens'),
    head: await sql.sql('SELECT seq, hash FROM chain_head'),
  };
}

describeEngines('tradebook copy into PostgreSQL', (database, real) => {
  test('the log row for row (hashes as stored), the keys with their revocations, the chain head at the last event; no token; the chain verifies', async () => {
    const last = sourceEvents[sourceEvents.length - 1];
    const report = await copyInto(database());
    expect(report).toEqual({ events: sourceEvents.length, keys: 2, head: { seq: last.seq, hash: last.hash }, problems: [] });
    const copied = await contents(database().pool);
    expect(copied.events).toEqual(sourceEvents);
    const sqlite = openSqlite(file, { readonly: true });
    try {
      expect(copied.keys).toEqual(sqlite.prepare(KEYS.replaceAll('"', '')).all());
    } finally {
      sqlite.close();
    }
    expect(copied.keys).toMatchObject([
      { id: 1, name: 'bookkeeper', scope: 'api', revoked: null },
      { id: 2, name: 'auditor', scope: 'audit', expires: '2027-01-01T00:00:00.000Z', revoked: expect.any(String) },
    ]);
    expect(copied.tokens).toEqual([]);
    expect(copied.head).toEqual([{ seq: last.seq, hash: last.hash }]);
    expect(await verifyChain(readEvents(database().pool))).toEqual({ ok: true, events: sourceEvents.length });
  });

  test('a target holding events is refused and left as it was', async () => {
    await copyInto(database());
    const before = await contents(database().pool);
    await expect(copyInto(database())).rejects.toThrow(new TargetNotEmptyError(sourceEvents.length, 2));
    expect(await contents(database().pool)).toEqual(before);
  });

  test('a target holding a key and no event is refused and left as it was', async () => {
    await migrate(database().session);
    await database().session.sql(`INSERT INTO api_keys (id, name, scope, key_hash, created_at) VALUES (1, 'theirs', 'api', 'h', '2026-11-25T10:00:00.000Z')`);
    await expect(copyInto(database())).rejects.toThrow(new TargetNotEmptyError(0, 1));
    expect(await contents(database().pool)).toMatchObject({ events: [], keys: [{ name: 'theirs' }], head: [{ seq: 0, hash: GENESIS_HASH }] });
  });

  test('a failure after every event went in leaves the target empty, and the copy can be run again', async () => {
    await migrate(database().session);
    // The last row of the transaction is refused: the keys go in after the whole log.
    await database().session.sql(`ALTER TABLE api_keys ADD CONSTRAINT no_auditor CHECK (name <> 'auditor')`);
    await expect(copyInto(database())).rejects.toThrow(/no_auditor/);
    expect(await contents(database().pool)).toEqual({ events: [], keys: [], tokens: [], head: [{ seq: 0, hash: GENESIS_HASH }] });
    await database().session.sql('ALTER TABLE api_keys DROP CONSTRAINT no_auditor');
    expect((await copyInto(database())).problems).toEqual([]);
  });

  test('an event refused while the next ones are read leaves the target empty', async () => {
    await migrate(database().session);
    // In the first statement, which the server runs while the second statement's rows are read.
    await database().session.sql('ALTER TABLE events ADD CONSTRAINT not_1500 CHECK (seq <> 1500)');
    await expect(copyInto(database())).rejects.toThrow(/not_1500/);
    expect(await contents(database().pool)).toEqual({ events: [], keys: [], tokens: [], head: [{ seq: 0, hash: GENESIS_HASH }] });
  });

  test('a point-in-time copy is refused (copied, it would take new events) before the target is touched', async () => {
    const copy = openSqlite(await pointInTimeOfSource(100), { readonly: true });
    try {
      await expect(copyCompany(await sqliteCopySource(copy), postgresCopyTarget(database()))).rejects.toThrow(new SourceIsPointInTimeError(100));
    } finally {
      copy.close();
    }
    expect(await database().pool.sql("SELECT to_regclass('events') AS events")).toEqual([{ events: null }]);
  });

  test('a log whose chain does not recompute is copied as it is, and the check says where it breaks', async () => {
    const altered = sourceEvents.map((row) => (row.seq === 5 ? { ...row, data: row.data.replace('}', ',"x":1}') } : row));
    const report = await copyCompany({ events: altered, count: altered.length, keys: [], pointInTime: undefined, firstRecordedSince: async () => undefined }, postgresCopyTarget(database()));
    expect(report.problems).toEqual([`the copy's hash chain is broken at seq 5 (${altered[4].stream}): event 5 of ${altered[4].stream} does not match its hash`]);
  });

  test.runIf(real)('through the command line: the summary, exit 0; then the target is not empty: one line, exit 2', async () => {
    const url = database().url!;
    const run = await runCli(file, ['copy', '--to', url]);
    const last = sourceEvents[sourceEvents.length - 1];
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(
        `^copied ${sourceEvents.length} events and 2 keys from .*source\\.db to ${url.replace(/[.?]/g, '\\$&')} in [\\d.]+ s; last seq ${last.seq}, hash ${last.hash}; its hash chain recomputes there and ends at the same hash\n` +
          'its read tables are built: tradebook can serve it\n$',
      ),
    );
    // Built from the copied log: they equal a fresh build. The copies run as processes, as an operator runs them;
    // the checks and refusals after them in this process.
    expect((await runCliHere(url, ['verify'])).stdout).toMatch(/^verify: OK: hash chain of \d+ events intact; 15 read tables equal a fresh rebuild\n$/);
    expect(await runCliHere(file, ['copy', '--to', url])).toEqual({
      status: 2,
      stdout: '',
      stderr: `tradebook: cannot copy to ${url}: it is not empty (${sourceEvents.length} events, 2 keys); a copy goes only into an empty database\n`,
    });
  });

  test.runIf(real)('through the command line: --json; a bad URL, a server not there, a URL for the source: one line, exit 2', async () => {
    const url = database().url!;
    const last = sourceEvents[sourceEvents.length - 1];
    for (const [to, line] of [
      ['postgres://root@[::1/db', 'tradebook: --to must be a postgres:// or postgresql:// URL, got postgres://root@[::1/db'],
      ['postgres://root:secret@127.0.0.1:1/db', 'tradebook: cannot copy to postgres://root:***@127.0.0.1:1/db: connect ECONNREFUSED 127.0.0.1:1'],
    ]) {
      expect(await runCliHere(file, ['copy', '--to', to])).toEqual({ status: 2, stdout: '', stderr: `${line}\n` });
    }
    // A database onto itself, and a source that is neither a file nor PostgreSQL, are refused before anything is read.
    expect(await runCliHere(url, ['copy', '--to', url])).toEqual({ status: 2, stdout: '', stderr: `tradebook: TRADEBOOK_DB and --to are the same database, ${url}: a copy goes into another one\n` });
    expect(await runCliHere('mysql://root@127.0.0.1/db', ['copy', '--to', url])).toEqual({
      status: 2,
      stdout: '',
      stderr: 'tradebook: TRADEBOOK_DB must be a SQLite file or a postgres:// or postgresql:// URL, got mysql://root@127.0.0.1/db\n',
    });
    const run = await runCli(file, ['copy', '--to', url, '--json']);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ from: file, to: url, events: sourceEvents.length, keys: 2, seq: last.seq, hash: last.hash, seconds: expect.any(Number), ok: true });
  });
});

/** A file not there yet, in the folder of the source. */
const newFile = () => path.join(dir, `target-${Math.random()}.db`);

/** What a SQLite file holds of a company: its log, keys and tokens. */
function fileContents(target: string) {
  const db = openSqlite(target, { readonly: true });
  try {
    return {
      events: [...readSqliteEvents(db)],
      keys: db.prepare(KEYS.replaceAll('"', '')).all(),
      tokens: db.prepare('SELECT token_hash FROM access_tokens').all(),
    };
  } finally {
    db.close();
  }
}

/** Copies the PostgreSQL database `source` into the SQLite file `target`, as `tradebook copy --to FILE` does. */
async function copyBack(source: TestDatabase, target: string) {
  const copy = sqliteCopyTarget(target);
  try {
    return await copyCompany(await postgresCopySource(source), copy);
  } finally {
    copy.close();
  }
}

describeEngines('tradebook copy from PostgreSQL into a SQLite file', (database, real) => {
  test('the log row for row (hashes as stored), the keys with their revocations, no token: what the first file held', async () => {
    await copyInto(database());
    const target = newFile();
    const last = sourceEvents[sourceEvents.length - 1];
    expect(await copyBack(database(), target)).toEqual({ events: sourceEvents.length, keys: 2, head: { seq: last.seq, hash: last.hash }, problems: [] });
    const copied = fileContents(target);
    expect(copied).toEqual({ ...fileContents(file), tokens: [] });
    expect(copied.events).toEqual(sourceEvents);
    expect(copied.keys).toMatchObject([{ name: 'bookkeeper', revoked: null }, { name: 'auditor', revoked: expect.any(String) }]);
  });

  test('a file holding events, or a key and no event, is refused and left as it was, byte for byte', async () => {
    await copyInto(database());
    const withEvents = newFile();
    fs.copyFileSync(file, withEvents);
    const withAKey = newFile();
    const tb = await openSqliteCompany(withAKey);
    await tb.keys.create({ name: 'theirs' });
    tb.close();
    for (const [target, refusal] of [
      [withEvents, new TargetNotEmptyError(sourceEvents.length, 2)],
      [withAKey, new TargetNotEmptyError(0, 1)],
    ] as const) {
      const before = fs.readFileSync(target);
      await expect(copyBack(database(), target)).rejects.toThrow(refusal);
      expect(fs.readFileSync(target).equals(before)).toBe(true);
    }
  });

  test('a failure after every event went in leaves the file without an event or a key, and the copy can be run again', async () => {
    await copyInto(database());
    const target = newFile();
    const db = openSqlite(target);
    try {
      await migrateSqlite(kyselyOf(db));
      // The last row of the transaction is refused: the keys go in after the whole log.
      db.exec(`CREATE TRIGGER no_auditor BEFORE INSERT ON api_keys WHEN NEW.name = 'auditor' BEGIN SELECT RAISE(ABORT, 'no auditor'); END`);
    } finally {
      db.close();
    }
    await expect(copyBack(database(), target)).rejects.toThrow(/no auditor/);
    expect(fileContents(target)).toEqual({ events: [], keys: [], tokens: [] });
    const again = openSqlite(target);
    again.exec('DROP TRIGGER no_auditor');
    again.close();
    expect((await copyBack(database(), target)).problems).toEqual([]);
    expect(fileContents(target).events).toEqual(sourceEvents);
  });

  test.runIf(real)('the source is read as one snapshot: what is written to it meanwhile is not copied', async () => {
    await copyInto(database());
    const reading = openPostgres(database().url!, { poolSize: 1 });
    const copied = newFile();
    const target = sqliteCopyTarget(copied);
    try {
      const source = await postgresCopySource(reading);
      const writer = new PostgresWriter(database().session);
      await writer.run(() => new PostgresEventLog(writer, Date.now).append([{ stream: 'brand-100000', type: 'BrandAdded', data: { id: 100_000, name: 'later', logo: null } }], {}));
      await database().session.sql(`INSERT INTO api_keys (id, name, scope, key_hash, created_at) VALUES (3, 'later', 'api', 'h', '2026-11-25T10:00:00.000Z')`);
      expect(await copyCompany(source, target)).toMatchObject({ events: sourceEvents.length, keys: 2, problems: [] });
    } finally {
      target.close();
      await reading.close();
    }
    // The first file's log and keys: neither the later event nor the later key.
    expect(fileContents(copied)).toEqual({ ...fileContents(file), tokens: [] });
  });
});

test('from one SQLite file into another: the same log and keys; a point-in-time source is refused before the file is made', async () => {
  const target = newFile();
  const db = openSqlite(file, { readonly: true });
  try {
    const copy = sqliteCopyTarget(target);
    expect((await copyCompany(await sqliteCopySource(db), copy)).problems).toEqual([]);
    copy.close();
  } finally {
    db.close();
  }
  expect(fileContents(target)).toEqual({ ...fileContents(file), tokens: [] });

  const copy = openSqlite(await pointInTimeOfSource(100), { readonly: true });
  const untouched = newFile();
  try {
    await expect(copyCompany(await sqliteCopySource(copy), sqliteCopyTarget(untouched))).rejects.toThrow(new SourceIsPointInTimeError(100));
  } finally {
    copy.close();
  }
  expect(fs.existsSync(untouched)).toBe(false);
});
