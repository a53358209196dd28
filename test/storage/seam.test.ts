import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

/**
 * The storage seam: the database drivers, the engines' adapters and everything that only SQLite understands live
 * under src/storage/, so a second engine needs no change elsewhere. Two checks: the import graph of every source
 * file (what outside src/storage/ imports an adapter or a driver), and the lines outside it that write SQL only
 * SQLite accepts.
 */
const SRC = path.resolve(import.meta.dirname, '../../src');
const STORAGE = path.join(SRC, 'storage');

/** The adapters, by folder: only src/storage/ reaches them (through the port, `storage/engine.ts`, and `storage/open-engine.ts`). */
const ADAPTERS = ['sqlite', 'postgres'].map((engine) => path.join(STORAGE, engine));
/** The drivers: only the adapters import them. */
const DRIVERS = ['better-sqlite3', 'postgres', '@electric-sql/pglite'];

const CROSSINGS: [string, RegExp][] = [
  ['sets a pragma', /\bpragma\b/i],
  ['pins an index (INDEXED BY)', /\bINDEXED\s+BY\b/i],
  ['INSERT OR IGNORE / OR REPLACE', /\bINSERT\s+OR\s+(IGNORE|REPLACE)\b/i],
  ['a WITHOUT ROWID table', /\bWITHOUT\s+ROWID\b/i],
  ['reads sqlite_master', /\bsqlite_(master|schema)\b/i],
  ['attaches a database', /\bATTACH\b/],
  ['raises from a trigger', /\bRAISE\s*\(/],
  ['group_concat', /\bgroup_concat\s*\(/i],
];

/** Every module a source text names: `import … from`, `export … from`, a bare `import '…'`, `import()` and `require()`. */
function importsOf(text: string): string[] {
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[^'";]*?\sfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1]));
}

/** Why the module `file` may not import `specifier`, or undefined when it may. */
function crossing(file: string, specifier: string): string | undefined {
  if (file.startsWith(STORAGE + path.sep)) return undefined;
  if (DRIVERS.includes(specifier)) return `imports the driver ${specifier}`;
  if (!specifier.startsWith('.')) return undefined;
  const target = path.resolve(path.dirname(file), specifier);
  const adapter = ADAPTERS.find((folder) => target === folder || target.startsWith(folder + path.sep));
  return adapter && `imports the ${path.basename(adapter)} adapter (${path.relative(SRC, target)})`;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

test('nothing outside src/storage/ imports an adapter or a database driver', () => {
  const crossings = sourceFiles(SRC).flatMap((file) =>
    importsOf(fs.readFileSync(file, 'utf8')).flatMap((specifier) => {
      const why = crossing(file, specifier);
      return why ? [`${path.relative(SRC, file)} ${why}`] : [];
    }),
  );
  expect(crossings).toEqual([]);
});

test('nothing outside src/storage/ writes SQL only SQLite accepts', () => {
  const crossings: string[] = [];
  for (const file of sourceFiles(SRC).filter((file) => !file.startsWith(STORAGE + path.sep))) {
    fs.readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const [what, pattern] of CROSSINGS) if (pattern.test(line)) crossings.push(`${path.relative(SRC, file)}:${i + 1} ${what}: ${line.trim()}`);
      });
  }
  expect(crossings).toEqual([]);
});

test('the seam test sees a crossing when there is one', () => {
  const text = [
    "import type { Sqlite } from '../storage/sqlite/open.ts';",
    "import {\n  PostgresEngine,\n} from '../storage/postgres/engine.ts';",
    "export { openSqlite } from '../storage/sqlite/open.ts';",
    "const pg = await import('../storage/postgres/connection.ts');",
    "import Database from 'better-sqlite3';",
    "import postgres from 'postgres';",
    "const { PGlite } = await import('@electric-sql/pglite');",
    "import { openEngine } from '../storage/open-engine.ts';",
    "import type { Engine } from '../storage/engine.ts';",
    "import { Hono } from 'hono';",
  ].join('\n');
  const outside = path.join(SRC, 'audit', 'example.ts');
  expect(importsOf(text).map((specifier) => crossing(outside, specifier))).toEqual([
    'imports the sqlite adapter (storage/sqlite/open.ts)',
    'imports the postgres adapter (storage/postgres/engine.ts)',
    'imports the sqlite adapter (storage/sqlite/open.ts)',
    'imports the driver better-sqlite3',
    'imports the driver postgres',
    undefined,
    undefined,
    undefined,
    'imports the postgres adapter (storage/postgres/connection.ts)',
    'imports the driver @electric-sql/pglite',
  ]);
  // Inside src/storage/ the same imports are the adapters' own business.
  expect(importsOf(text).map((specifier) => crossing(path.join(STORAGE, 'open-engine.ts'), specifier)).filter(Boolean)).toEqual([]);
  const line = "db.pragma('x'); SELECT name FROM sqlite_master";
  expect(CROSSINGS.filter(([, pattern]) => pattern.test(line)).map(([what]) => what)).toEqual(['sets a pragma', 'reads sqlite_master']);
});
