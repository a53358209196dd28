import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

/**
 * Behaviour tests go through the surface (the tradebook's reads and writes, the HTTP app, the command line),
 * never a database handle, so that they can run on another engine unchanged; tests of the SQLite engine itself
 * live in test/storage/sqlite/. This fails on any test file outside test/storage/ that reaches for one.
 */
const TEST = path.resolve(import.meta.dirname, '..');
const STORAGE_TESTS = path.join(TEST, 'storage');

const RAW_HANDLE: [string, RegExp][] = [
  ['imports the SQLite driver', /from\s+['"]better-sqlite3['"]/],
  ['opens SQLite', /\bopenSqlite\(/],
  ['prepares a statement', /\.prepare\(/],
  ["uses the tradebook's database handle", /\btb\.db\b/],
];

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return full === STORAGE_TESTS ? [] : testFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const crossingsOf = (text: string) => RAW_HANDLE.filter(([, pattern]) => pattern.test(text)).map(([what]) => what);

test('behaviour tests reach no database handle', () => {
  const reaching = testFiles(TEST)
    .map((file) => [path.relative(TEST, file), crossingsOf(fs.readFileSync(file, 'utf8'))] as const)
    .filter(([, crossings]) => crossings.length > 0);
  expect(reaching, 'reach for a database handle: go through the surface, or move an engine test to test/storage/sqlite/').toEqual([]);
});

test('the check sees a handle when there is one', () => {
  expect(crossingsOf("import Database from 'better-sqlite3'; const n = tb.db.prepare('SELECT 1').get();")).toEqual([
    'imports the SQLite driver',
    'prepares a statement',
    "uses the tradebook's database handle",
  ]);
  expect(crossingsOf("await api.get('/api/products'); expect(await tb.audit.lastSeq()).toBe(1);")).toEqual([]);
});
