import { formatMoscow } from '../lib/clock.ts';
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

/** Who caused an event: a key by id and name, an import line, or the source the event names. */
export type WhoOf = (meta: EventMeta) => string;

/** The words `whoOf` tells who with: English for the API and the command line, the reader's in the workbench. */
export interface WhoWords {
  key(id: number, name: string | undefined): string;
  importLine(line: number): string;
  commandLine(user: string): string;
  unknown: string;
}

export const ENGLISH_WHO: WhoWords = {
  key: (id, name) => (name === undefined ? `key ${id}` : `key ${id} "${name}"`),
  importLine: (line) => `import line ${line}`,
  commandLine: (user) => `command line, user ${user}`,
  unknown: 'unknown',
};

export function whoOf(keyName: (id: number) => string | undefined, words: WhoWords = ENGLISH_WHO): WhoOf {
  return (meta) => {
    if (meta.keyId !== undefined) return words.key(meta.keyId, keyName(meta.keyId));
    if (meta.importLine !== undefined) return words.importLine(meta.importLine);
    if (meta.user !== undefined) return words.commandLine(meta.user);
    return meta.source ?? words.unknown;
  };
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
