import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

/**
 * The storage seam: the database drivers, the engines' adapters and everything that only SQLite understands live
 * under src/storage/, so a second engine needs no change elsewhere; and storage is the bottom, knowing no read
 * model, audit or key above it. Three checks: the import graph of every source file (what outside src/storage/
 * imports an adapter or a driver; what inside it imports from above it, or one adapter from the other), and the
 * lines outside it that write SQL only SQLite accepts.
 */
const SRC = path.resolve(import.meta.dirname, '../../src');
const STORAGE = path.join(SRC, 'storage');

/** The adapters, by folder: only src/storage/ reaches them (through the port, `storage/engine.ts`, and `storage/open-engine.ts`). */
const ADAPTERS = ['sqlite', 'postgres'].map((engine) => path.join(STORAGE, engine));
/** What storage stands on: the only folders of src/ beside its own that a module of src/storage/ imports. */
const BELOW_STORAGE = ['lib', 'events'].map((folder) => path.join(SRC, folder));
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

const within = (target: string, folder: string) => target === folder || target.startsWith(folder + path.sep);

/** Why the module `file` of src/storage/ may not import `specifier`, or undefined when it may. */
function storageCrossing(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = path.resolve(path.dirname(file), specifier);
  if (!within(target, STORAGE)) {
    return BELOW_STORAGE.some((folder) => within(target, folder)) ? undefined : `imports from above storage (${path.relative(SRC, target)})`;
  }
  const own = ADAPTERS.find((folder) => within(file, folder));
  const other = ADAPTERS.find((folder) => folder !== own && within(target, folder));
  return own && other && `the ${path.basename(own)} adapter imports the ${path.basename(other)} one (${path.relative(SRC, target)})`;
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

test('nothing in src/storage/ imports from above it, nor one adapter from the other', () => {
  const crossings = sourceFiles(STORAGE).flatMap((file) =>
    importsOf(fs.readFileSync(file, 'utf8')).flatMap((specifier) => {
      const why = storageCrossing(file, specifier);
      return why ? [`${path.relative(SRC, file)} ${why}`] : [];
    }),
  );
  expect(crossings).toEqual([]);
});

test('the storage check sees a crossing when there is one', () => {
  const text = [
    "import { projectors } from '../../projections/registry.ts';",
    "import type { AuditReads } from '../../audit/reads.ts';",
    "import type { KeyCache } from '../../tokens/key-cache.ts';",
    "import { readModels } from '../../read-models/read-models.ts';",
    "import { openSqlite } from '../sqlite/open.ts';",
    "import type { StoredEvent } from '../../events/rows.ts';",
    "import type { Clock } from '../../lib/clock.ts';",
    "import { StorageFault } from '../errors.ts';",
    "import { placeholders } from '../sql.ts';",
    "import { postgresSession } from './session.ts';",
    "import postgres from 'postgres';",
  ].join('\n');
  const inPostgres = path.join(STORAGE, 'postgres', 'example.ts');
  expect(importsOf(text).map((specifier) => storageCrossing(inPostgres, specifier))).toEqual([
    'imports from above storage (projections/registry.ts)',
    'imports from above storage (audit/reads.ts)',
    'imports from above storage (tokens/key-cache.ts)',
    'imports from above storage (read-models/read-models.ts)',
    'the postgres adapter imports the sqlite one (storage/sqlite/open.ts)',
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
  // The other way round too; a neutral module of storage/ may reach both adapters.
  expect(storageCrossing(path.join(STORAGE, 'sqlite', 'example.ts'), '../postgres/connection.ts')).toBe('the sqlite adapter imports the postgres one (storage/postgres/connection.ts)');
  expect(storageCrossing(path.join(STORAGE, 'example.ts'), './postgres/connection.ts')).toBeUndefined();
  expect(storageCrossing(path.join(STORAGE, 'example.ts'), '../company.ts')).toBe('imports from above storage (company.ts)');
});

/** The source files `file` reaches through its relative imports, itself included. */
function reachedFrom(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file) || !fs.existsSync(file)) return seen;
  seen.add(file);
  for (const specifier of importsOf(fs.readFileSync(file, 'utf8'))) {
    if (specifier.startsWith('.')) reachedFrom(path.resolve(path.dirname(file), specifier), seen);
  }
  return seen;
}

test('the PostgreSQL adapter reaches nothing of the SQLite one, not even through a neutral module of storage/', () => {
  // A build by way of a SQLite scratch database is the read-models layer's strategy (read-models/scratch-build.ts).
  const [sqlite, postgres] = ADAPTERS;
  const reached = sourceFiles(postgres).flatMap((file) =>
    [...reachedFrom(file)].filter((target) => within(target, sqlite)).map((target) => `${path.relative(SRC, file)} reaches ${path.relative(SRC, target)}`),
  );
  expect(reached).toEqual([]);
});

test('the reach check follows imports through modules in between', () => {
  const reached = [...reachedFrom(path.join(STORAGE, 'scratch.ts'))].map((file) => path.relative(SRC, file));
  expect(reached).toEqual(expect.arrayContaining(['storage/scratch.ts', 'storage/sqlite/open.ts', 'storage/sqlite/maintenance.ts']));
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
