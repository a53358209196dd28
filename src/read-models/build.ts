import type { StoredEvent } from '../events/rows.ts';
import { buildInto } from '../projections/build.ts';
import { createReadIndexes } from '../projections/registry.ts';
import { type BuildSite, type EventReader, type RebuildProgress, type TableNames, servedNames } from '../storage/read-tables.ts';
import type { ReadModels } from './read-models.ts';
import { buildViaScratch } from './scratch-build.ts';

/** Events a transaction of a build: a build defers its heavy work to the final flush, so a transaction costs little. */
const CHUNK = 1000;
/** Events between two reports of a build's progress, where the events are counted as they are read. */
const PROGRESS_EVERY = 1000;

export interface BuildOptions {
  /** Whether the build creates the read indexes (after the rows are in), or leaves them to the caller. */
  readIndexes: boolean;
  onProgress?: (progress: RebuildProgress) => void;
}

/**
 * Builds every read table of `readModels` (with its checkpoints) on `site` under `names`, from the log up to
 * `until`. The strategy follows the engine: where it applies an event without a round trip (SQLite) the events
 * are applied on the site itself; where a statement costs a round trip (a site offering a bulk `load`) the tables
 * are built in a scratch database and their rows loaded (`scratch-build.ts`).
 */
export async function buildOn(readModels: ReadModels, site: BuildSite, names: TableNames, until: number, options: BuildOptions): Promise<void> {
  const { list } = readModels;
  const { load } = site;
  if (load) {
    await buildViaScratch(list, counted(site.events(until), until, options.onProgress), until, { ...site, load }, names);
    if (options.readIndexes) await site.transaction(() => createReadIndexes(site.session, list, names));
    return;
  }
  await buildInto(list, site.session, names, readerOf(site.events(until)), {
    chunk: CHUNK,
    readIndexes: options.readIndexes,
    transaction: site.transaction,
    onProgress: (done) => options.onProgress?.({ done, total: until }),
  });
}

/** Events read one at a time, at once from an iterable (SQLite) or later from an async one. */
export function readerOf(events: Iterable<StoredEvent> | AsyncIterable<StoredEvent>): EventReader {
  return Symbol.iterator in events ? events[Symbol.iterator]() : events[Symbol.asyncIterator]();
}

/** `events` with `onProgress` told every PROGRESS_EVERY of them and at the end, of `total`. */
async function* counted(events: Iterable<StoredEvent> | AsyncIterable<StoredEvent>, total: number, onProgress?: (progress: RebuildProgress) => void): AsyncGenerator<StoredEvent> {
  let done = 0;
  for await (const event of events) {
    yield event;
    if (++done % PROGRESS_EVERY === 0) onProgress?.({ done, total });
  }
  onProgress?.({ done, total });
}

/** A build of the served tables from the log up to `until`, read indexes and all, on the site it is handed (a point-in-time copy's file). */
export function servedBuild(readModels: ReadModels, until: number, onProgress?: (progress: RebuildProgress) => void): (site: BuildSite) => Promise<void> {
  return (site) => buildOn(readModels, site, servedNames, until, { readIndexes: true, onProgress });
}
