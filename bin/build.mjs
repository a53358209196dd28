#!/usr/bin/env node
// `npm run build`: the bundles of every entry point into dist/ (see bundle.mjs). `--at-install` is how `npm ci` and
// `npm install` run it (package.json's `prepare`): there a build that cannot be made (the sources not copied yet,
// as in a container's dependency layer) is told in one line and the install goes on; the entry points then run
// from their sources until `npm run build` is run.
import { ENTRIES, buildBundle } from './bundle.mjs';

const atInstall = process.argv.includes('--at-install');
try {
  for (const [name, entry] of Object.entries(ENTRIES)) await buildBundle(entry, name);
} catch (error) {
  process.stderr.write(`tradebook build: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}\n`);
  if (!atInstall) process.exit(1);
  process.stderr.write('tradebook build: no bundle built; the server and the command line run from their sources until `npm run build`\n');
}
