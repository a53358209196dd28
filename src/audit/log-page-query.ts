import { EVENT_COLUMNS } from '../events/rows.ts';
import { eventDefinitions } from '../events/registry.ts';
import { valueList } from '../storage/sql.ts';

/**
 * A page of the log as the workbench reads it: after or before a seq, in either direction, filtered by a record
 * (a whole stream name, or the start of one) and by event types named by the start of their name, whatever the
 * case. The type names are known, so a type filter is a list of names the (type, seq) index finds.
 */
export interface LogPageQuery {
  after?: number;
  before?: number;
  /** A stream (`sale-187`), or the start of streams' names (`sale-`, `contractor`), any case. */
  stream?: string;
  /** The start of event types' names, any case (`posted`, `documentp`). */
  type?: string;
  /** UTC ISO time: only events recorded at or after it. */
  since?: string;
  descending: boolean;
  limit: number;
}

const WHOLE_STREAM = /^[a-z-]+-\d+$/;

/** The first text after every text that starts with `prefix`, in byte order (both engines compare streams so). */
const pastPrefix = (prefix: string) => `${prefix.slice(0, -1)}${String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)}`;

/** The event types whose names start with `start`, any case. */
const typesStartingWith = (start: string) => eventDefinitions.map((d) => d.type).filter((type) => type.toLowerCase().startsWith(start.toLowerCase()));

const COLUMNS = EVENT_COLUMNS.map((column) => `e.${column}`).join(', ');

/**
 * The query's SQL, selecting every column of the events, `?` for each parameter; undefined when nothing can match
 * (no event type starts so). The page's seqs are found first, from an index alone where the filter allows
 * (a start of streams' names is a range of the (stream, stream_version) index), then just those rows are read.
 */
export function logPageSql(query: LogPageQuery): { sql: string; params: unknown[] } | undefined {
  const params: unknown[] = [];
  const conditions: string[] = [];
  const add = (condition: string, value: unknown) => {
    params.push(value);
    conditions.push(condition);
  };
  if (query.after !== undefined) add('seq > ?', query.after);
  if (query.before !== undefined) add('seq < ?', query.before);
  if (query.stream !== undefined) {
    // Record kinds are written in lower case; a status's name (contractor-status-…) keeps its own.
    const stream = query.stream.trim().replace(/[A-Z]/g, (c) => c.toLowerCase());
    if (WHOLE_STREAM.test(stream)) add('stream = ?', stream);
    else if (stream !== '') {
      add('stream >= ?', stream);
      add('stream < ?', pastPrefix(stream));
    }
  }
  if (query.type !== undefined) {
    const types = typesStartingWith(query.type.trim());
    if (types.length === 0) return undefined;
    params.push(...types);
    conditions.push(`type IN (${valueList(types.length)})`);
  }
  if (query.since !== undefined) add('recorded_at >= ?', query.since);
  params.push(query.limit);
  const where = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
  const order = query.descending ? 'DESC' : 'ASC';
  return {
    sql: `SELECT ${COLUMNS} FROM (SELECT seq FROM events ${where} ORDER BY seq ${order} LIMIT ?) AS p JOIN events e ON e.seq = p.seq ORDER BY e.seq ${order}`,
    params,
  };
}
