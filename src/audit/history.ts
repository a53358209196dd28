import { formatMoscow } from '../lib/clock.ts';
import { type ImportRun, importRunStream } from '../events/imports.ts';
import type { EventMeta, StoredEvent } from '../events/store.ts';
import { type RecordFields, foldEvent } from './record-fold.ts';

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
  unknown: string;
}

export const ENGLISH_WHO: WhoWords = {
  key: (id, name) => (name === undefined ? `key ${id}` : `key ${id} "${name}"`),
  importLine: (line) => `import line ${line}`,
  importRunLine: (run, line) => `import of file ${run.file} (SHA-256 ${run.sha256}) on ${run.ended} by ${run.user}, line ${line}`,
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

/** A stream's events (in stream order) as history entries, each field change before → after. */
export function historyOf(events: readonly StoredEvent[], who: WhoOf): HistoryEntry[] {
  let state: RecordFields | undefined;
  return events.map((event) => {
    const folded = foldEvent(state, event);
    state = folded.state;
    const changes: Record<string, unknown> = {};
    const before: Record<string, unknown> = {};
    for (const change of folded.changes) {
      changes[change.field] = change.after;
      if (change.before !== undefined) before[change.field] = change.before;
    }
    return {
      seq: event.seq,
      streamVersion: event.streamVersion,
      type: event.type,
      time: formatMoscow(Date.parse(event.recordedAt)),
      recordedAt: event.recordedAt,
      who: who(event.meta),
      changes,
      before,
    };
  });
}
