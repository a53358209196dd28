import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

/**
 * The storage seam: the database drivers, and everything that only SQLite understands, live under src/storage/,
 * so a second engine needs no change elsewhere. This reads every source file outside it and names each line that crosses.
 */
const SRC = path.resolve(import.meta.dirname, '../../src');
const STORAGE = path.join(SRC, 'storage');

const CROSSINGS: [string, RegExp][] = [
  ['imports the SQLite driver', /from\s+['"]better-sqlite3['"]|require\(\s*['"]better-sqlite3['"]\s*\)/],
  ['imports a PostgreSQL driver', /from\s+['"](postgres|@electric-sql\/pglite)['"]/],
  ['sets a pragma', /\bpragma\b/i],
  ['pins an index (INDEXED BY)', /\bINDEXED\s+BY\b/i],
  ['INSERT OR IGNORE / OR REPLACE', /\bINSERT\s+OR\s+(IGNORE|REPLACE)\b/i],
  ['a WITHOUT ROWID table', /\bWITHOUT\s+ROWID\b/i],
  ['reads sqlite_master', /\bsqlite_(master|schema)\b/i],
  ['attaches a database', /\bATTACH\b/],
  ['raises from a trigger', /\bRAISE\s*\(/],
  ['group_concat', /\bgroup_concat\s*\(/i],
];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return full === STORAGE ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

test('nothing outside src/storage/ imports a database driver or writes SQL only SQLite accepts', () => {
  const crossings: string[] = [];
  for (const file of sourceFiles(SRC)) {
    fs.readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const [what, pattern] of CROSSINGS) if (pattern.test(line)) crossings.push(`${path.relative(SRC, file)}:${i + 1} ${what}: ${line.trim()}`);
      });
  }
  expect(crossings).toEqual([]);
});

test('the seam test sees a crossing when there is one', () => {
  const line = "const db = require('better-sqlite3'); db.pragma('x'); SELECT name FROM sqlite_master";
  expect(CROSSINGS.filter(([, pattern]) => pattern.test(line)).map(([what]) => what)).toEqual(['imports the SQLite driver', 'sets a pragma', 'reads sqlite_master']);
  expect(CROSSINGS.filter(([, pattern]) => pattern.test("import postgres from 'postgres';")).map(([what]) => what)).toEqual(['imports a PostgreSQL driver']);
});
