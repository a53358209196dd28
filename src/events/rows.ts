import { canonicalValue } from '../lib/canonical-json.ts';
import { chainHash, type HashedColumns } from './hash.ts';
import { type DomainEvent, definitionByType } from './registry.ts';

/**
 * What an append stores, whatever the engine: the event rows with their seqs, stream versions and hash chain,
 * and the events as projectors see them. Each engine reads the head and the streams' versions its own way and
 * writes the rows its own way; everything between is here, once.
 */

/** Who and what caused an event; keys appear only by id and access tokens only by hash, never themselves. */
export interface EventMeta {
  keyId?: number;
  /** SHA-256 (hex) of the access token the write was made with, as `access_tokens` keeps it. */
  tokenHash?: string;
  /** The access token itself: only in events logged before tokens were hashed (rows are never rewritten). */
  token?: string;
  source?: string;
  importLine?: number;
  /** The import run that appended the event (`ImportRunRecorded` in stream `import-<run>`). */
  importRun?: string;
}

/** `no_stream`: the stream must not exist yet; a number: the stream's current version must be exactly that. */
export type ExpectedVersion = 'no_stream' | 'stream_exists' | number;

export type NewEvent = DomainEvent & { stream: string; expectedVersion?: ExpectedVersion };

export type StoredEvent = DomainEvent & {
  seq: number;
  stream: string;
  streamVersion: number;
  schemaVersion: number;
  meta: EventMeta;
  recordedAt: string;
};

/** An event as the log stores it: a row of `events`, each column as stored (on every engine). */
export interface EventRow extends HashedColumns {
  hash: string;
}

/** Told of each append's events inside its transaction (the inline projectors). */
export type AppendListener = (events: StoredEvent[]) => Promise<void> | void;

/** Which events to read; every condition given must hold. */
export interface EventFilter {
  after?: number;
  stream?: string;
  type?: string;
  /** UTC ISO time: only events recorded at or after it. */
  since?: string;
}

export class ConcurrencyError extends Error {}

/** The columns of `events`, in the order rows are inserted. */
export const EVENT_COLUMNS = ['seq', 'stream', 'stream_version', 'type', 'schema_version', 'data', 'meta', 'recorded_at', 'hash'] as const;

/** The last event of the log: its seq and hash (0 and the genesis hash for an empty log). */
export interface LogHead {
  seq: number;
  hash: string;
}

/** The distinct streams `events` go to, whose current versions an append needs. */
export function streamsOf(events: NewEvent[]): string[] {
  return [...new Set(events.map((e) => e.stream))];
}

/** One meta for every event of an append, or each event's own (an import's lines each name their line). */
export type EventMetas = EventMeta | readonly EventMeta[];

/**
 * The rows that append `events` after `head`, given the current version of every stream they go to (`versions`,
 * a stream missing from it is new). Throws before anything is written when an event does not match its schema
 * or a stream is not at the version the event expects.
 */
export function eventRows(events: NewEvent[], meta: EventMetas, head: LogHead, versions: ReadonlyMap<string, number>, recordedAt: string): { rows: EventRow[]; stored: StoredEvent[] } {
  let seq = head.seq;
  let previous = head.hash;
  const current = new Map(versions);
  // Projectors get each event exactly as a rebuild will read it back (keys in stored order, the values JSON
  // gives back), so the read tables written now and those a rebuild writes are equal byte for byte. Events
  // given one meta object share its stored form, as a replay's events of one batch do.
  const metas = new Map<EventMeta, { storedMeta: EventMeta; metaJson: string }>();
  const storedForm = (given: EventMeta) => {
    let found = metas.get(given);
    if (found === undefined) {
      const storedMeta = canonicalValue(given) as EventMeta;
      metas.set(given, (found = { storedMeta, metaJson: JSON.stringify(storedMeta) }));
    }
    return found;
  };
  const metaOf = metaOfEvent(meta, events.length);
  const rows: EventRow[] = [];
  const stored: StoredEvent[] = [];
  for (const [index, event] of events.entries()) {
    const { storedMeta, metaJson } = storedForm(metaOf(index));
    const definition = definitionByType.get(event.type);
    if (!definition) throw new Error(`unknown event type ${event.type}`);
    // A malformed event is a bug in a command: refuse it before it reaches the log.
    const data = canonicalValue(definition.schema.parse(event.data));
    const version = current.get(event.stream) ?? 0;
    checkExpected(event, version);
    const row: HashedColumns = {
      seq: ++seq,
      stream: event.stream,
      stream_version: version + 1,
      type: event.type,
      schema_version: definition.schemaVersion,
      data: JSON.stringify(data),
      meta: metaJson,
      recorded_at: recordedAt,
    };
    previous = chainHash(previous, row);
    rows.push({ ...row, hash: previous });
    current.set(event.stream, version + 1);
    stored.push({
      type: event.type,
      data,
      seq: row.seq,
      stream: row.stream,
      streamVersion: row.stream_version,
      schemaVersion: row.schema_version,
      meta: storedMeta,
      recordedAt,
    } as StoredEvent);
  }
  return { rows, stored };
}

/** Each event's meta: the one given for all, or its own; a list of another length is a bug in the caller. */
function metaOfEvent(meta: EventMetas, events: number): (index: number) => EventMeta {
  if (!Array.isArray(meta)) return () => meta as EventMeta;
  if (meta.length !== events) throw new Error(`${meta.length} metas given for ${events} events`);
  return (index) => meta[index];
}

function checkExpected(event: NewEvent, current: number): void {
  const expected = event.expectedVersion;
  if (expected === undefined) return;
  const okay = expected === 'no_stream' ? current === 0 : expected === 'stream_exists' ? current > 0 : current === expected;
  if (!okay) throw new ConcurrencyError(`stream ${event.stream} is at version ${current}, expected ${expected}`);
}
