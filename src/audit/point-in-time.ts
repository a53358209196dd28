import fs from 'node:fs';
import type { EventRow } from '../events/rows.ts';
import { parseMoment } from '../lib/clock.ts';
import type { BuildSite } from '../storage/read-tables.ts';
import type { CopySource } from '../storage/copy.ts';
import { writePointInTimeFile } from '../storage/open-engine.ts';

/** What `--until` is resolved against: the log's length, and the first event recorded at or after a moment. */
export interface LogClock {
  lastSeq: number;
  firstRecordedSince(iso: string): Promise<number | undefined>;
}

/**
 * The seq a `--until` names: a seq itself, or a time (`parseMoment`: Moscow time, or with an offset) meaning the
 * longest prefix of the log recorded within or before that second (the copy must be a prefix, or its hash chain would break).
 * Undefined when the text is neither.
 */
export async function resolveUntil(log: LogClock, text: string): Promise<number | undefined> {
  if (/^\d{1,16}$/.test(text)) return Math.min(Number(text), log.lastSeq);
  const moment = parseMoment(text);
  if (moment === undefined) return undefined;
  const firstAfter = await log.firstRecordedSince(new Date(moment + 1000).toISOString());
  return firstAfter === undefined ? log.lastSeq : firstAfter - 1;
}

/** The rows of `events` up to and including `until`. */
async function* upTo(events: Iterable<EventRow> | AsyncIterable<EventRow>, until: number): AsyncGenerator<EventRow> {
  for await (const row of events) {
    if (row.seq > until) return;
    yield row;
  }
}

/**
 * Writes `file`, a SQLite database from either engine's `source` (named `sourceName` in the copy): the log up to
 * `until` (the same rows, so the same hashes), the API keys, and the read tables built by `build` from that prefix, as they
 * were at that seq. The copy is marked read-only (a row in `point_in_time` and a trigger refusing new events). It
 * is written under a temporary name and renamed when complete, so an interrupted run leaves no half-written copy
 * behind.
 */
export async function writePointInTime(
  source: CopySource,
  sourceName: string,
  until: number,
  file: string,
  build: (site: BuildSite) => Promise<void>,
): Promise<{ events: number }> {
  const partial = `${file}.partial`;
  const removePartial = () => ['', '-wal', '-shm'].forEach((suffix) => fs.rmSync(partial + suffix, { force: true }));
  removePartial();
  try {
    const built = await writePointInTimeFile(partial, upTo(source.events, until), source.keys, until, sourceName, build);
    fs.renameSync(partial, file);
    return { events: built };
  } finally {
    removePartial();
  }
}
