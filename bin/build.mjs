#!/usr/bin/env node
// `npm run build`: the bundles of every entry point into dist/ (see bundle.mjs). `--at-install` is how `npm ci` and
// `npm install` run it (package.json's `prepare`): there a build that cannot be made (the sources not copied yet,
// as in a container's dependency layer) is told in one line and the install goes on; the entry points then run
// from their sources until `npm run build` is run.
import fs from 'node:fs';
import path from 'node:path';
import { ENTRIES, buildBundle } from './bundle.mjs';

const atInstall = process.argv.includes('--at-install');
const root = path.resolve(import.meta.dirname, '..');

function fail(problem) {
  process.stderr.write(`tradebook build: ${problem}\n`);
  if (!atInstall) process.exit(1);
  process.stderr.write('tradebook build: no bundle built; the server and the command line run from their sources until `npm run build`\n');
}

const missing = Object.values(ENTRIES).filter((entry) => !fs.existsSync(path.join(root, entry)));
if (missing.length > 0) {
  fail(`${missing.join(', ')} not found: are the sources there yet?`);
} else {
  try {
    for (const [name, entry] of Object.entries(ENTRIES)) await buildBundle(entry, name);
  } catch (error) {
    // esbuild has printed what it could not build.
    fail(error instanceof Error ? error.message.split('\n')[0] : String(error));
  }
}
