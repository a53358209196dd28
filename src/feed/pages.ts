import { lastSeq } from '../storage/log-reads.ts';
import { type SqlSession, valueList } from '../storage/sql.ts';
import { LogTail } from './tail.ts';
import { CHANGE_COLUMNS, type ChangeColumns, type ChangeRow, EVENT_TYPES, RECORD_KINDS, type RecordKind, TYPES_OF_KIND, changeRow } from './change.ts';

/**
 * Pages of the log as followers read them: after a position, in seq order, perhaps of some event types only.
 * The log is dense from 1 and its seqs commit in order, so a page is a range of seqs, and a position (the last
 * seq a follower has seen) is all it needs to go on.
 */

/** Seqs a filtered page looks through at most: a filter that matches nothing costs no more than this. */
export const SCAN_WINDOW = 10_000;

export interface ChangePage {
  rows: ChangeRow[];
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

const RANGE = `SELECT ${CHANGE_COLUMNS} FROM events WHERE seq > ? AND seq <= ? ORDER BY seq`;
// One text for every filter: the list always has a place for each event type, the unused ones repeat a used one.
const FILTERED = `SELECT ${CHANGE_COLUMNS} FROM events WHERE seq > ? AND seq <= ? AND type IN (${valueList(EVENT_TYPES.length)}) ORDER BY seq LIMIT ?`;

const changeRows = async (session: SqlSession, text: string, params: readonly unknown[]) => (await session.rows<ChangeColumns>(text, params)).map(changeRow);

/** What the followers of one database share: its tail, and the one read of its head in flight. */
interface Shared {
  tail: LogTail;
  head: Promise<number> | undefined;
}
const sharedOf = new WeakMap<SqlSession, Shared>();

function shared(session: SqlSession): Shared {
  let found = sharedOf.get(session);
  if (found === undefined) sharedOf.set(session, (found = { tail: new LogTail((after, end) => changeRows(session, RANGE, [after, end])), head: undefined }));
  return found;
}

/**
 * Up to `limit` changes after `after` (of the event types `types`, all when undefined). The log's head is read
 * first (once for every follower asking meanwhile): every seq up to it is committed and visible, so a page never
 * passes over one committed a moment later. A follower near the head takes its rows from the tail the followers
 * share (`LogTail`); one further behind reads them from the database.
 */
export async function changesAfter(session: SqlSession, after: number, limit: number, types?: ReadonlySet<string>): Promise<ChangePage> {
  const { tail } = shared(session);
  const head = await headOf(session);
  const end = Math.min(head, after + (types === undefined ? limit : SCAN_WINDOW));
  if (end <= after) return { rows: [], next: after };
  const near = await tail.rowsAfter(after, end, head);
  if (types === undefined) return { rows: near ?? (await changeRows(session, RANGE, [after, end])), next: end };
  const rows = near ? near.filter((row) => types.has(row.type)).slice(0, limit) : await changeRows(session, FILTERED, [after, end, ...typeList(types), limit]);
  return { rows, next: rows.length === limit ? rows[limit - 1].seq : end };
}

function headOf(session: SqlSession): Promise<number> {
  const found = shared(session);
  return (found.head ??= lastSeq(session).finally(() => (found.head = undefined)));
}

/** The filter's parameters: a place for each event type, the unused ones repeating a used one. */
function typeList(types: ReadonlySet<string>): string[] {
  const wanted = [...types];
  return EVENT_TYPES.map((_, i) => wanted[i] ?? wanted[0]);
}
