// @ts-expect-error: a plain ES module of the entry points, without type declarations
import { ENTRIES, ensureBundle } from '../bin/bundle.mjs';

/**
 * Vitest's global set-up: the bundles the tests' processes run (`bin/server.mjs`, `bin/tradebook.mjs`) built from
 * the sources as they are, as `npm run build` builds them; a start never builds one (bin/bundle.mjs).
 */
export default async function buildBundles(): Promise<void> {
  for (const [name, entry] of Object.entries(ENTRIES as Record<string, string>)) await ensureBundle(entry, name);
}
