import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { line, romashka } from '../documents-fixtures.ts';
import { tempDir } from '../helpers.ts';
import { runCliHere as cli } from '../cli-in-process.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('--db', () => {
  test('every command works on the database --db names, given before or after the command, over TRADEBOOK_DB', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'chosen.db');
    // What TRADEBOOK_DB names (runCliHere sets it) is never touched.
    const other = path.join(dir, 'other.db');
    const run = async (args: string[], stdin?: string) => {
      const result = await cli(other, args, stdin);
      // Progress and build lines may go to stderr; a problem is a `tradebook:` line.
      expect([args, result.status, result.stderr]).toEqual([args, 0, expect.not.stringContaining('tradebook:')]);
      return result.stdout;
    };
    await run(['keys', 'create', '--db', db]);
    await run(['--db', db, 'import', '-'], `${JSON.stringify(line('contractor', romashka))}\n`);
    expect(await run(['events', '--db', db])).toContain('"ContractorAdded"');
    expect(await run(['history', 'contractor-7', '--db', db])).toContain('ContractorAdded');
    expect(await run(['--db', db, 'keys', 'list'])).toMatch(/^ID +NAME/);
    await run(['verify', '--db', db]);
    await run(['rebuild', '--db', db]);
    await run(['backup', path.join(dir, 'backup.db'), '--db', db]);
    await run(['copy', '--to', path.join(dir, 'copy.db'), '--db', db]);
    await run(['keys', 'revoke', '1', '--db', db]);
    await run(['seed', '--demo', '--products', '3', '--contractors', '2', '--documents', '2', '--db', path.join(dir, 'seeded.db')]);
    await run(['anchor-key', path.join(dir, 'anchor.pem'), '--db', db]);
    expect(await run(['anchor', '--key', path.join(dir, 'anchor.pem'), '--db', db])).toContain('"signature"');
    expect(fs.existsSync(other)).toBe(false);
  });

  test('--help names --db and TRADEBOOK_DB, and so does every command’s help', async () => {
    const help = (await cli('unused.db', ['--help'])).stdout;
    expect(help).toContain('--db <database>');
    expect(help).toContain('TRADEBOOK_DB');
    const commands = [...help.slice(help.indexOf('Commands:')).matchAll(/^ {2}([a-z-]+)/gm)].map((m) => m[1]).filter((name) => name !== 'help');
    expect(commands).toEqual(expect.arrayContaining(['keys', 'import', 'events', 'history', 'rebuild', 'verify', 'seed', 'anchor', 'backup', 'copy']));
    for (const command of commands) {
      const own = (await cli('unused.db', [command, '--help'])).stdout;
      expect([command, own.includes('--db <database>') && own.includes('TRADEBOOK_DB')]).toEqual([command, true]);
    }
  });
});

test('import --help points to the format in the repository', async () => {
  const help = (await cli('unused.db', ['import', '--help'])).stdout;
  expect(help).toContain('docs/import.md');
  expect(help).toContain('docs/import-schema.json');
  expect(help).toContain('--note <text>');
});

describe('tradebook events --type', () => {
  test('names an event type in any case; a name of no type is one line and exit 2', async () => {
    const db = path.join(tempDir(), 't.db');
    await cli(db, ['import', '-'], `${JSON.stringify(line('contractor', romashka))}\n`);
    for (const type of ['ContractorAdded', 'contractoradded', 'CONTRACTORADDED']) {
      const run = await cli(db, ['events', '--type', type]);
      expect([type, run.status, run.stdout.trim().split('\n').map((text) => JSON.parse(text).type)]).toEqual([type, 0, ['ContractorAdded']]);
    }
    const unknown = await cli(db, ['events', '--type', 'posted']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/^tradebook: --type: no event type "posted"; the types are [A-Za-z, ]*DocumentPosted[A-Za-z, ]*\n$/);
  });
});

describe('tradebook keys list', () => {
  test('has a header, and says which keys are active, expired or revoked', async () => {
    const db = path.join(tempDir(), 't.db');
    await cli(db, ['keys', 'create', '--name', 'live', '--expires', '2099-01-01 00:00:00']);
    await cli(db, ['keys', 'create', '--name', 'old', '--expires', '2020-01-01 00:00:00']);
    await cli(db, ['keys', 'create', '--name', 'gone']);
    await cli(db, ['keys', 'revoke', '3']);
    const rows = (await cli(db, ['keys', 'list'])).stdout.trim().split('\n').map((row) => row.split(/ {2,}/));
    expect(rows.map((row) => row.slice(0, 4))).toEqual([
      ['ID', 'NAME', 'SCOPE', 'STATE'],
      ['1', 'live', 'api', 'active'],
      ['2', 'old', 'api', 'expired'],
      ['3', 'gone', 'api', 'revoked'],
    ]);
    expect(rows[0].slice(4)).toEqual(['CREATED', 'EXPIRES', 'REVOKED']);
    expect(JSON.parse((await cli(db, ['keys', 'list', '--json'])).stdout).map((k: { state: string }) => k.state)).toEqual(['active', 'expired', 'revoked']);
  });
});

/** Runs a `bin/` script as a process; one that has not ended after `ms` is killed and reported as `killed`. */
function runFor(script: string, env: Record<string, string>, ms: number, args: string[] = []): Promise<{ status: number | 'killed'; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.join(ROOT, script), ...args], { cwd: ROOT, env: { ...process.env, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, ms);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ status: killed ? 'killed' : (code ?? -1), stdout, stderr });
    }),
  );
}

test('a database whose folder cannot be made (under /proc): the command line and the server exit 2 with one line, at once', { timeout: 120_000 }, async () => {
  // "At once": well within the 30 s allowed here on a loaded machine; Node's recursive mkdir spun there for ever.
  const database = '/proc/tradebook/data/tradebook.db';
  const command = await runFor('bin/tradebook.mjs', { TRADEBOOK_DB: database }, 30_000, ['keys', 'create']);
  expect(command).toEqual({ status: 2, stdout: '', stderr: expect.stringMatching(/^tradebook: .*cannot create the folder \/proc\/tradebook\/data: .*ENOENT.*\n$/) });
  const server = await runFor('bin/server.mjs', { TRADEBOOK_DB: database }, 30_000);
  expect(server.status).toBe(2);
  expect(server.stderr).toMatch(/^tradebook: cannot serve \/proc\/tradebook\/data\/tradebook.db: .*cannot create the folder.*\n$/);
});
