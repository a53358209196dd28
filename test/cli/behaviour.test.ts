import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { tempDir } from '../helpers.ts';
import { runCli, runToExit } from '../server-process.ts';

// Each command runs as its own process.
vi.setConfig({ testTimeout: 120_000 });

const BIN = path.resolve(import.meta.dirname, '../../bin/tradebook.mjs');
const version = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')).version;
/** A user's mistake is told in one line: no stack frame may appear. */
const oneLine = (stderr: string) => {
  expect(stderr.trim().split('\n')).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
};

describe('the command line tells a user mistake in one line, with exit status 2', () => {
  test('a missing or unreadable import file, an unknown option, a missing argument', async () => {
    const dir = tempDir();
    const db = path.join(dir, 't.db');
    // Each is refused before the database is opened: the processes run side by side.
    const mistakes = [['verify', '--bogus'], ['keys', 'revoke'], ['frobnicate']];
    const [missing, folder, ...runs] = await Promise.all([['import', path.join(dir, 'nope.ndjson')], ['import', dir], ...mistakes].map((args) => runCli(db, args)));
    expect([missing.status, missing.stderr]).toEqual([2, `tradebook: cannot read ${path.join(dir, 'nope.ndjson')}: no such file\n`]);
    expect([folder.status, folder.stderr]).toEqual([2, `tradebook: cannot read ${dir}: it is a folder\n`]);
    for (const [i, args] of mistakes.entries()) {
      expect([args, runs[i].status]).toEqual([args, 2]);
      oneLine(runs[i].stderr);
    }
  });

  test('keys list and keys revoke refuse a database path where there is none, and create nothing; keys create makes it', async () => {
    const db = path.join(tempDir(), 'missing.db');
    for (const args of [['keys', 'list'], ['keys', 'revoke', '1']]) {
      const run = await runCli(db, args);
      expect([run.status, run.stderr]).toEqual([2, `tradebook: no database at ${db} (set --db or TRADEBOOK_DB)\n`]);
      expect(fs.existsSync(db)).toBe(false);
    }
    expect((await runCli(db, ['keys', 'create'])).status).toBe(0);
    expect(fs.existsSync(db)).toBe(true);
  });

  test('a file that is no database: every command and the server say so in one line, exit 2, and leave it as it was', async () => {
    const file = path.join(tempDir(), 'notes.txt');
    fs.writeFileSync(file, 'not a database\n'.repeat(100));
    const line = `${file} is not a tradebook database (file is not a database)`;
    // Side by side: none gets past reading the file's header, so none waits for another's lock.
    const commands = [['verify'], ['events'], ['history', 'product-1'], ['keys', 'list'], ['keys', 'create'], ['import', '/dev/null'], ['rebuild']];
    const [served, ...runs] = await Promise.all([runToExit('bin/server.mjs', [], { TRADEBOOK_DB: file, PORT: '0' }), ...commands.map((args) => runCli(file, args))]);
    for (const [i, args] of commands.entries()) {
      expect([args, runs[i]]).toEqual([args, { status: 2, stdout: '', stderr: `tradebook: ${line}\n` }]);
    }
    expect([served.status, served.stderr]).toEqual([2, `tradebook: cannot serve ${file}: ${line}\n`]);
    expect(fs.readFileSync(file, 'utf8')).toBe('not a database\n'.repeat(100));
  });

  test('a reader that stops early (events | head -1) ends the command quietly', async () => {
    const db = path.join(tempDir(), 't.db');
    expect((await runCli(db, ['seed', '--demo', '--products', '300', '--contractors', '20', '--documents', '300'])).status).toBe(0);
    const run = spawnSync('bash', ['-c', `node "${BIN}" events | head -1 > /dev/null; echo "status \${PIPESTATUS[0]}" >&2`], {
      env: { ...process.env, TRADEBOOK_DB: db },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('status 0\n');
  });
});

describe('--version and --json', () => {
  test('--version prints the version', async () => {
    const run = await runCli(path.join(tempDir(), 't.db'), ['--version']);
    expect([run.status, run.stdout]).toEqual([0, `${version}\n`]);
  });

  test('keys create --json, times read with an offset and shown in Moscow time with its offset; an expiry in the past is created with a warning', async () => {
    const db = path.join(tempDir(), 't.db');
    const created = await runCli(db, ['keys', 'create', '--name', 'ci', '--expires', '2030-01-01T00:00:00Z', '--json']);
    expect([created.status, created.stderr]).toEqual([0, '']);
    expect(JSON.parse(created.stdout)).toEqual({ id: 1, name: 'ci', scope: 'api', expires: '2030-01-01 03:00:00+03:00', key: expect.stringMatching(/^tb_\w{40}$/) });
    const past = await runCli(db, ['keys', 'create', '--name', 'old', '--expires', '2020-01-01 00:00:00']);
    expect(past.status).toBe(0);
    expect(past.stderr).toBe('tradebook: warning: key 2 expires 2020-01-01 00:00:00+03:00, already past: it is refused from the start\n');
    const listed = (await runCli(db, ['keys', 'list'])).stdout.trim().split('\n');
    expect(listed[2]).toMatch(/^2 +old +api +expired +\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\+03:00 +2020-01-01 00:00:00\+03:00 +-$/);
    expect((await runCli(db, ['keys', 'create', '--expires', '2030-02-30 00:00:00+03:00'])).status).toBe(2);
  });

  test('import --json and seed --json report as JSON; failed lines make the status 1', async () => {
    const db = path.join(tempDir(), 't.db');
    const seeded = await runCli(db, ['seed', '--demo', '--products', '5', '--contractors', '2', '--documents', '3', '--json']);
    expect(seeded.status).toBe(0);
    expect(JSON.parse(seeded.stdout)).toMatchObject({ failed: 0, applied: expect.any(Number), events: expect.any(Number), seconds: expect.any(Number) });
    const lines = ['{"type":"product_brand","data":{"name":"Новый бренд"}}', 'not json'].join('\n');
    const imported = await runCli(db, ['import', '-', '--json'], lines);
    expect(imported.status).toBe(1);
    expect(JSON.parse(imported.stdout)).toEqual({ lines: 2, applied: 1, failed: 1, events: 1, run: expect.stringMatching(/^\d{16}$/) });
    expect(imported.stderr).toBe('line 2: ERROR_LINE: the line is not valid JSON\n');
  });

  test('verify --json and rebuild --json; a point in time before the first event is refused and writes nothing', async () => {
    const dir = tempDir();
    const db = path.join(dir, 't.db');
    expect((await runCli(db, ['import', '-'], '{"type":"product_brand","data":{"name":"Бренд"}}\n')).status).toBe(0);
    const verified = await runCli(db, ['verify', '--json']);
    expect(verified.status).toBe(0);
    // The brand, and the import run's record.
    expect(JSON.parse(verified.stdout)).toEqual({ ok: true, chain: { ok: true, events: 2 }, tables: { ok: true, count: expect.any(Number), differences: [] } });
    const rebuilt = await runCli(db, ['rebuild', '--json']);
    expect(rebuilt.status).toBe(0);
    expect(JSON.parse(rebuilt.stdout)).toEqual({ events: 2, seconds: expect.any(Number) });
    const copy = path.join(dir, 'copy.db');
    for (const until of ['2000-01-01 00:00:00', '0']) {
      const early = await runCli(db, ['rebuild', '--until', until, '--into', copy]);
      expect([early.status, early.stderr]).toEqual([2, `tradebook: --until ${until} is before the first event: the copy would hold no log\n`]);
      expect(fs.existsSync(copy)).toBe(false);
    }
    const written = await runCli(db, ['rebuild', '--until', '1', '--into', copy, '--json']);
    expect(JSON.parse(written.stdout)).toEqual({ into: copy, until: 1, seconds: expect.any(Number) });
    // Without --until, from a database whose log is empty: said as such.
    const empty = path.join(dir, 'empty.db');
    expect((await runCli(empty, ['keys', 'create'])).status).toBe(0);
    const none = await runCli(empty, ['rebuild', '--into', path.join(dir, 'none.db')]);
    expect([none.status, none.stderr]).toEqual([2, 'tradebook: the log is empty: a point-in-time copy would hold no log\n']);
    expect(fs.existsSync(path.join(dir, 'none.db'))).toBe(false);
  });
});
