import { setImmediate as nextTurn } from 'node:timers/promises';
import { formatMoscow } from '../lib/clock.ts';
import { type ImportRun, importRunStream } from '../records/import-run/events.ts';
import type { EventMeta, StoredEvent } from '../events/store.ts';
import { type FoldedRecord, type RecordFields, UNFOLDED, evolveFields, foldEvent, foldRecord } from './record-fold.ts';

/** One event of a record's history, told for people: when (Moscow time), who, and each field it changed. */
export interface HistoryEntry {
  seq: number;
  streamVersion: number;
  type: string;
  time: string;
  recordedAt: string;
  who: string;
  /** Each field the event changed, as the event left it (events in their current shape). */
  changes: Record<string, unknown>;
  /** The same fields as they were before the event; a field the record did not have yet is absent. */
  before: Record<string, unknown>;
}

/** Who caused an event: a key by id and name, an import run's file and line, or the source the event names. */
export type WhoOf = (meta: EventMeta) => string;

/** An import run as the history names it: its record, and when it ended in Moscow time (`YYYY-MM-DD HH:MM:SS`). */
export type ImportRunShown = ImportRun & { ended: string };

/** The words `whoOf` tells who with: English for the API and the command line, the reader's in the workbench. */
export interface WhoWords {
  key(id: number, name: string | undefined): string;
  importLine(line: number): string;
  /** A line of a recorded import run: the file, its SHA-256, when and by whom it was imported. */
  importRunLine(run: ImportRunShown, line: number): string;
  commandLine(user: string): string;
  unknown: string;
}

export const ENGLISH_WHO: WhoWords = {
  key: (id, name) => (name === undefined ? `key ${id}` : `key ${id} "${name}"`),
  importLine: (line) => `import line ${line}`,
  importRunLine: (run, line) => `import of file ${run.file} (SHA-256 ${run.sha256}) on ${run.ended} by ${run.user}, line ${line}`,
  commandLine: (user) => `command line, user ${user}`,
  unknown: 'unknown',
};

/** How `whoOf` finds a key's name and an import run's record, each read beforehand (see `importRunsOf`). */
export interface WhoLookups {
  keyName(id: number): string | undefined;
  importRun?(runId: string): ImportRunShown | undefined;
}

export function whoOf({ keyName, importRun }: WhoLookups, words: WhoWords = ENGLISH_WHO): WhoOf {
  return (meta) => {
    if (meta.keyId !== undefined) return words.key(meta.keyId, keyName(meta.keyId));
    if (meta.importLine !== undefined) {
      // A run that stopped before its end left no record: its lines are told as lines.
      const run = meta.importRun === undefined ? undefined : importRun?.(meta.importRun);
      return run === undefined ? words.importLine(meta.importLine) : words.importRunLine(run, meta.importLine);
    }
    if (meta.user !== undefined) return words.commandLine(meta.user);
    return meta.source ?? words.unknown;
  };
}

/** The records of the import runs these events name, each read once from its own stream. */
export async function importRunsOf(streamEvents: (stream: string) => Promise<StoredEvent[]>, metas: EventMeta[]): Promise<Map<string, ImportRunShown>> {
  const runs = new Map<string, ImportRunShown>();
  for (const runId of new Set(metas.flatMap((meta) => (meta.importRun === undefined ? [] : [meta.importRun])))) {
    const recorded = (await streamEvents(importRunStream(runId))).find((event) => event.type === 'ImportRunRecorded');
    if (recorded?.type === 'ImportRunRecorded') runs.set(runId, { ...recorded.data, ended: formatMoscow(Date.parse(recorded.recordedAt)) });
  }
  return runs;
}

/** One event as a history entry, from the record's fields before it. */
function entryOf(before: RecordFields | undefined, event: StoredEvent, who: WhoOf): HistoryEntry {
  const changes: Record<string, unknown> = {};
  const was: Record<string, unknown> = {};
  for (const change of foldEvent(before, event).changes) {
    changes[change.field] = change.after;
    if (change.before !== undefined) was[change.field] = change.before;
  }
  return {
    seq: event.seq,
    streamVersion: event.streamVersion,
    type: event.type,
    time: formatMoscow(Date.parse(event.recordedAt)),
    recordedAt: event.recordedAt,
    who: who(event.meta),
    changes,
    before: was,
  };
}

/** A stream's events (in stream order, from its first) as history entries, each field change before → after. */
export function historyOf(events: readonly StoredEvent[], who: WhoOf): HistoryEntry[] {
  let state: RecordFields | undefined;
  return events.map((event) => {
    const entry = entryOf(state, event, who);
    state = evolveFields(state, event);
    return entry;
  });
}

/** How many entries a page of a record's history holds in the workbench. */
export const HISTORY_PAGE = 50;

/** Events read and folded between turns of the event loop while a record's fields before a version are found. */
const FOLDED_A_TURN = 250;

/** Reads a stream's events from version `from` to `to`, both included, in order. */
export type ReadVersions = (from: number, to: number) => Promise<StoredEvent[]>;

/**
 * Hands a stream's events from version `from` to version `to` to `visit` a chunk at a time, between turns of the
 * event loop (so a record of 50,000 events holds no other request up), until `visit` answers false.
 */
async function walkVersions(read: ReadVersions, from: number, to: number, visit: (chunk: StoredEvent[]) => boolean): Promise<void> {
  for (let start = from; start <= to; start += FOLDED_A_TURN) {
    if (start > from) await nextTurn();
    const chunk = await read(start, Math.min(to, start + FOLDED_A_TURN - 1));
    if (!visit(chunk) || chunk.length < FOLDED_A_TURN) return;
  }
}

/**
 * A record folded from its events up to version `to` recorded at or before `atMs` (all of them when omitted), on
 * from a fold of its first events (`from`).
 */
export async function foldVersions(read: ReadVersions, to: number, atMs = Infinity, from = UNFOLDED): Promise<FoldedRecord> {
  let folded = from;
  await walkVersions(read, from.events + 1, to, (chunk) => {
    const before = folded.events;
    folded = foldRecord(chunk, atMs, folded);
    // Fewer than the chunk: the moment passed.
    return folded.events - before === chunk.length;
  });
  return folded;
}

/**
 * The entries of a record's history for these versions (oldest first), who told by `whoFor` from their events: the
 * events before each are folded on the way, without the work of telling their changes.
 */
export async function historyOfVersions(read: ReadVersions, versions: readonly number[], whoFor: (events: StoredEvent[]) => WhoOf | Promise<WhoOf>): Promise<HistoryEntry[]> {
  const wanted = new Set(versions);
  const found: { before: RecordFields | undefined; event: StoredEvent }[] = [];
  let state: RecordFields | undefined;
  await walkVersions(read, 1, Math.max(0, ...versions), (chunk) => {
    for (const event of chunk) {
      if (wanted.has(event.streamVersion)) found.push({ before: state, event });
      state = evolveFields(state, event);
    }
    return true;
  });
  const who = await whoFor(found.map(({ event }) => event));
  return found.map(({ before, event }) => entryOf(before, event, who));
}

/**
 * The last `size` entries of a record's history up to version `upTo` (oldest first; a version past the record's
 * last is its last), and that last version: its events are read and folded from the first, a chunk at a time,
 * keeping only the page's; a record of few events is one read.
 */
export async function latestHistory(read: ReadVersions, upTo: number, size: number, whoFor: (events: StoredEvent[]) => WhoOf | Promise<WhoOf>): Promise<{ entries: HistoryEntry[]; last: number }> {
  const kept: { before: RecordFields | undefined; event: StoredEvent }[] = [];
  let state: RecordFields | undefined;
  await walkVersions(read, 1, upTo, (chunk) => {
    for (const event of chunk) {
      kept.push({ before: state, event });
      if (kept.length > size) kept.shift();
      state = evolveFields(state, event);
    }
    return true;
  });
  const who = await whoFor(kept.map(({ event }) => event));
  return { entries: kept.map(({ before, event }) => entryOf(before, event, who)), last: kept.at(-1)?.event.streamVersion ?? 0 };
}

/**
 * A record's whole history, oldest first, a chunk of entries at a time: its events read and folded once, from the
 * first, who told by `whoFor` from each chunk's events.
 */
export async function* historyChunks(read: ReadVersions, whoFor: (events: StoredEvent[]) => WhoOf | Promise<WhoOf>): AsyncGenerator<HistoryEntry[]> {
  let state: RecordFields | undefined;
  for (let start = 1; ; start += FOLDED_A_TURN) {
    const chunk = await read(start, start + FOLDED_A_TURN - 1);
    const who = await whoFor(chunk);
    yield chunk.map((event) => {
      const entry = entryOf(state, event, who);
      state = evolveFields(state, event);
      return entry;
    });
    if (chunk.length < FOLDED_A_TURN) return;
  }
}

/** The versions `from` to `to`, both included. */
export const versionsFrom = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
