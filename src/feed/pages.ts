import { EVENT_COLUMNS, type EventRow } from '../events/rows.ts';
import { lastSeq } from '../storage/log-reads.ts';
import { type SqlSession, valueList } from '../storage/sql.ts';
import { EVENT_TYPES, RECORD_KINDS, type RecordKind, TYPES_OF_KIND } from './change.ts';

/**
 * Pages of the log as followers read them: after a position, in seq order, perhaps of some event types only.
 * The log is dense from 1 and its seqs commit in order, so a page is a range of seqs, and a position (the last
 * seq a follower has seen) is all it needs to go on.
 */

/** Seqs a filtered page looks through at most: a filter that matches nothing costs no more than this. */
export const SCAN_WINDOW = 10_000;

export interface ChangePage {
  rows: EventRow[];
  /** The `after` of the next page: past every seq this page looked at, whether or not it matched. */
  next: number;
}

/** The event types that `names` (event types and record kinds) stand for; undefined and an error for a name of neither. */
export function eventTypesOf(names: readonly string[]): { types: Set<string> } | { unknown: string } {
  const types = new Set<string>();
  for (const name of names) {
    if (EVENT_TYPES.includes(name)) types.add(name);
    else if ((RECORD_KINDS as readonly string[]).includes(name)) for (const type of TYPES_OF_KIND[name as RecordKind]) types.add(type);
    else return { unknown: name };
  }
  return { types };
}

const COLUMNS = EVENT_COLUMNS.join(', ');
const RANGE = `SELECT ${COLUMNS} FROM events WHERE seq > ? AND seq <= ? ORDER BY seq`;
// One text for every filter: the list always has a place for each event type, the unused ones repeat a used one.
const FILTERED = `SELECT ${COLUMNS} FROM events WHERE seq > ? AND seq <= ? AND type IN (${valueList(EVENT_TYPES.length)}) ORDER BY seq LIMIT ?`;

/** The reads of pages in flight, by session and page: followers asking for the same page at once share one. */
const inFlight = new WeakMap<SqlSession, Map<string, Promise<ChangePage>>>();

/**
 * Up to `limit` changes after `after` (of the event types `types`, all when undefined). The followers one commit
 * wakes ask for the same page at the same moment: they share its read (and its rows, so each row is rendered once
 * a scope, see `changeJson`), where each would otherwise read and parse the same events. The log's head is read
 * first: every seq up to it is committed and visible, so a page never passes over one committed a moment later.
 */
async function readChangesAfter(session: SqlSession, after: number, limit: number, types?: ReadonlySet<string>): Promise<ChangePage> {
  const head = await lastSeq(session);
  const end = Math.min(head, after + (types === undefined ? limit : SCAN_WINDOW));
  if (end <= after) return { rows: [], next: after };
  if (types === undefined) return { rows: await session.objects<EventRow>(RANGE, [after, end]), next: end };
  const wanted = [...types];
  const list = EVENT_TYPES.map((_, i) => wanted[i] ?? wanted[0]);
  const rows = await session.objects<EventRow>(FILTERED, [after, end, ...list, limit]);
  return { rows, next: rows.length === limit ? rows[limit - 1].seq : end };
}

export function changesAfter(session: SqlSession, after: number, limit: number, types?: ReadonlySet<string>): Promise<ChangePage> {
  let reads = inFlight.get(session);
  if (reads === undefined) inFlight.set(session, (reads = new Map()));
  const page = `${after} ${limit} ${types === undefined ? '' : [...types].sort().join(',')}`;
  const shared = reads.get(page);
  if (shared !== undefined) return shared;
  const read = readChangesAfter(session, after, limit, types).finally(() => reads.delete(page));
  reads.set(page, read);
  return read;
}
