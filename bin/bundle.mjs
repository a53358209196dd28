// The bundles `bin/server.mjs` and `bin/tradebook.mjs` run: each TypeScript entry point bundled by esbuild into
// one file in `dist/`, which loads in a fraction of the time tsx takes to transform and resolve every module.
// They are built by `npm run build` (`npm ci` and `npm install` run it too, see bin/build.mjs), never at start: a
// deployment's code folder may be read-only (systemd's ProtectSystem=strict). A bundle whose sources (or
// package-lock.json) changed since it was built is stale and never run: the entry then runs from its sources
// through tsx, slower to start but the same code.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const REPOSITORY = path.resolve(import.meta.dirname, '..');

/** A hash of the files' contents (a missing file counts as a change). */
function fingerprint(root, files) {
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(file).update('\0');
    try {
      hash.update(fs.readFileSync(path.join(root, file)));
    } catch {
      hash.update('missing');
    }
    hash.update('\0');
  }
  return hash.digest('hex');
}

function readManifest(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Writes through a temporary name, so processes starting at the same time never read a half-written file. */
function writeAtomically(file, content) {
  const partial = `${file}.${process.pid}.partial`;
  fs.writeFileSync(partial, content);
  fs.renameSync(partial, file);
}

/** The entry points the `bin/` scripts run, by bundle name. */
export const ENTRIES = { server: 'src/server.ts', tradebook: 'src/cli/main.ts' };

/**
 * src/storage/kysely.ts loads Kysely through `require`, which esbuild cannot follow: from a bundle that is some 260
 * CommonJS files resolved and compiled at every start (~0.15 s of CPU a process, of 0.5). In a bundle the module imports
 * Kysely instead, so its ESM build is bundled with the rest; under tsx `require` stays the quicker way.
 */
const kyselyBundled = {
  name: 'kysely-bundled',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]storage[\\/]kysely\.ts$/ }, (args) => ({
      contents: "import * as kysely from 'kysely';\nexport { kysely };\nexport const { sql } = kysely;\n",
      loader: 'ts',
      resolveDir: path.dirname(args.path),
    }));
  },
};

/**
 * zod's namespace export carries every one of its ~45 locales (358 KB, a sixth of the server bundle) for
 * `z.locales`, which tradebook never uses: its messages are zod's English ones or its own. In a bundle the locales'
 * index holds English only.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: "export { default as en } from './en.js';\n",
      loader: 'js',
    }));
  },
};

const filesOf = (root, name) => ({ bundle: path.join(root, 'dist', `${name}.mjs`), manifest: path.join(root, 'dist', `${name}.json`) });

/** Builds the bundle of `entry` (a path under `root`, e.g. `src/server.ts`) into `root`/dist/`name`.mjs, and returns its path. */
export async function buildBundle(entry, name, root = REPOSITORY) {
  const { bundle, manifest } = filesOf(root, name);
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // better-sqlite3 is a native addon; exceljs (a third of the bundle, with its dependencies) is imported only by an
    // act's XLSX file: from node_modules at its first use, so that no start parses it (~90 ms of a server's start).
    external: ['better-sqlite3', 'exceljs'],
    // CommonJS dependencies inside an ES module bundle need a real `require` for Node's built-in modules.
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    write: false,
    outfile: bundle,
    metafile: true,
    plugins: [kyselyBundled, zodEnglishOnly],
    logLevel: 'warning',
  });
  // The dependencies' files are covered by the lock file; hashing them all would slow every start.
  const inputs = [...Object.keys(result.metafile.inputs).filter((f) => !f.includes('node_modules/')), 'package-lock.json'];
  fs.mkdirSync(path.dirname(bundle), { recursive: true });
  writeAtomically(bundle, result.outputFiles[0].contents);
  // The manifest goes last: a bundle is only trusted once its manifest says what it was built from.
  writeAtomically(manifest, JSON.stringify({ entry, inputs, hash: fingerprint(root, inputs) }));
  return bundle;
}

/** The path of the bundle of `entry` when it was built from the sources as they are now; otherwise undefined. Writes nothing. */
export function freshBundle(entry, name, root = REPOSITORY) {
  const { bundle, manifest: manifestFile } = filesOf(root, name);
  const manifest = readManifest(manifestFile);
  return manifest?.entry === entry && fs.existsSync(bundle) && fingerprint(root, manifest.inputs) === manifest.hash ? bundle : undefined;
}

/** The bundle of `entry`, built first when it is missing or stale (the benchmark, the tests: never a start). */
export async function ensureBundle(entry, name, root = REPOSITORY) {
  return freshBundle(entry, name, root) ?? buildBundle(entry, name, root);
}

/**
 * Imports `entry`: its bundle when it is fresh, otherwise its sources through tsx, saying so in one line on
 * standard error. Writes nothing into `root`.
 */
export async function importEntry(entry, name, root = REPOSITORY) {
  const bundle = freshBundle(entry, name, root);
  if (bundle !== undefined) return import(pathToFileURL(bundle).href);
  process.stderr.write(`tradebook: running ${entry} from its sources: dist/${name}.mjs is ${fs.existsSync(filesOf(root, name).bundle) ? 'older than they are' : 'not built'} (npm run build builds it)\n`);
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(path.join(root, entry)).href);
}
