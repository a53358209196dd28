import type { Tradebook } from '../tradebook.ts';
import { importLineKinds } from './import-lines.ts';
import { parseRecord } from './input.ts';
import { type DomainError, errorCodeFor, fail, ok, type Result } from '../lib/result.ts';

export interface ImportReport {
  lines: number;
  applied: number;
  failed: number;
  events: number;
}

export interface LineFailure {
  line: number;
  errors: DomainError[];
}

/** Lines committed together: each line still stands alone (its own savepoint), but the fsync is shared. */
const LINES_PER_COMMIT = 500;

/** What `JSON.parse` failed on: a line that is not JSON. */
const NOT_JSON = Symbol('not JSON');

/** One import record: a line's parsed JSON (`{type, data}` when well formed) and its line number. */
export interface ImportRecord {
  line: number;
  value: unknown;
}

function decideRecord(tb: Tradebook, value: unknown, line: number): Result<number> {
  if (value === NOT_JSON) return fail({ code: 'ERROR_LINE', message: 'the line is not valid JSON' });
  const { type, data } = (value ?? {}) as { type?: unknown; data?: unknown };
  const kind = typeof type === 'string' ? importLineKinds.get(type) : undefined;
  if (!kind) return fail({ code: 'ERROR_TYPE', field: 'type', message: `unknown line type ${JSON.stringify(type)}` });
  const record = parseRecord(kind.schema, data, kind.codes, errorCodeFor('data'));
  if (!record.ok) return record;
  return tb.write(() => {
    const decision = kind.decide(record.value as never, tb.state);
    if (!decision.ok) return decision;
    tb.store.append(decision.value.events, { source: 'import', importLine: line });
    return ok(decision.value.events.length);
  });
}

/**
 * `decideRecord`, with an exception (a bug in a decider or projector) confined to its line: the line's savepoint
 * is already rolled back, so the line fails alone and the rest of its commit group still commits. Only when
 * SQLite itself ended the group's transaction is there nothing left to commit into, and the error goes on.
 */
function decideLine(tb: Tradebook, value: unknown, line: number): Result<number> {
  try {
    return decideRecord(tb, value, line);
  } catch (error) {
    if (!tb.db.inTransaction) throw error;
    return fail({ code: 'ERROR_INTERNAL', message: `the line could not be applied: ${error instanceof Error ? error.message : String(error)}` });
  }
}

/**
 * Applies an NDJSON import line by line. A bad line is reported through `onFailure` and the others go on;
 * a line that changes nothing appends nothing, so importing the same file twice adds no event.
 */
export async function importLines(tb: Tradebook, lines: AsyncIterable<string>, onFailure: (failure: LineFailure) => void): Promise<ImportReport> {
  let count = 0;
  async function* records(): AsyncGenerator<ImportRecord> {
    for await (const text of lines) {
      count++;
      if (text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = NOT_JSON;
      }
      yield { line: count, value };
    }
  }
  const report = await importRecords(tb, records(), onFailure);
  return { ...report, lines: count };
}

/**
 * Applies import records that are already values (the seed generates them: no JSON text round trip), exactly
 * as `importLines` applies lines: the same schemas, deciders and event store, each record standing alone.
 * `linesPerCommit` records share a transaction (and its fsync).
 */
export async function importRecords(
  tb: Tradebook,
  records: AsyncIterable<ImportRecord> | Iterable<ImportRecord>,
  onFailure: (failure: LineFailure) => void,
  linesPerCommit = LINES_PER_COMMIT,
): Promise<ImportReport> {
  const report: ImportReport = { lines: 0, applied: 0, failed: 0, events: 0 };
  let group: ImportRecord[] = [];
  const flush = () => {
    tb.db
      .transaction(() => {
        for (const { value, line } of group) {
          const outcome = decideLine(tb, value, line);
          if (outcome.ok) {
            report.applied++;
            report.events += outcome.value;
          } else {
            report.failed++;
            onFailure({ line, errors: outcome.errors });
          }
        }
      })
      .immediate();
    group = [];
  };
  for await (const record of records) {
    report.lines++;
    group.push(record);
    if (group.length >= linesPerCommit) flush();
  }
  if (group.length > 0) flush();
  return report;
}
