// Runs a TypeScript entry point from a bundle built by esbuild: one file loads in a fraction of the time tsx
// takes to transform and resolve every module at each start. The bundle is rebuilt whenever a source it was
// built from (or package-lock.json) changed since, so a fresh clone needs no build step and never runs stale code.
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

async function build(root, entry, bundle, manifestFile) {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['better-sqlite3'], // a native addon: loaded from node_modules
    // CommonJS dependencies inside an ES module bundle need a real `require` for Node's built-in modules.
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    write: false,
    outfile: bundle,
    metafile: true,
    logLevel: 'warning',
  });
  // The dependencies' files are covered by the lock file; hashing them all would slow every start.
  const inputs = [...Object.keys(result.metafile.inputs).filter((f) => !f.includes('node_modules/')), 'package-lock.json'];
  fs.mkdirSync(path.dirname(bundle), { recursive: true });
  writeAtomically(bundle, result.outputFiles[0].contents);
  // The manifest goes last: a bundle is only trusted once its manifest says what it was built from.
  writeAtomically(manifestFile, JSON.stringify({ entry, inputs, hash: fingerprint(root, inputs) }));
}

/** The entry points the `bin/` scripts run, by bundle name. */
export const ENTRIES = { server: 'src/server.ts', tradebook: 'src/cli/main.ts' };

/**
 * The path of the bundle of `entry` (a path under `root`, e.g. `src/server.ts`), `root`/dist/`name`.mjs, built
 * first when it is missing or stale.
 */
export async function ensureBundle(entry, name, root = REPOSITORY) {
  const bundle = path.join(root, 'dist', `${name}.mjs`);
  const manifestFile = path.join(root, 'dist', `${name}.json`);
  const manifest = readManifest(manifestFile);
  const fresh = manifest?.entry === entry && fs.existsSync(bundle) && fingerprint(root, manifest.inputs) === manifest.hash;
  if (!fresh) await build(root, entry, bundle, manifestFile);
  return bundle;
}

/** Imports the bundle of `entry` (see `ensureBundle`). */
export async function importBundle(entry, name, root = REPOSITORY) {
  return import(pathToFileURL(await ensureBundle(entry, name, root)).href);
}
