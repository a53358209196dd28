import type { WriteContext } from './write-context.ts';
import { importLineKinds } from '../commands/import-lines.ts';
import { parseRecord } from '../lib/validation.ts';
import { type DomainError, errorCodeFor, fail, ok, type Result } from '../lib/result.ts';
import { isStorageError } from '../storage/errors.ts';
import { decideBatch } from './decide-batch.ts';

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

/**
 * Lines a group: each line stands alone (its own savepoint) in one transaction of the writer the server
 * writes through, so they share one commit and one fsync, and the write lock is held for one group at a time.
 */
const LINES_PER_GROUP = 200;

/** What `JSON.parse` failed on: a line that is not JSON. */
const NOT_JSON = Symbol('not JSON');

/** One import record: a line's parsed JSON (`{type, data}` when well formed) and its line number. */
export interface ImportRecord {
  line: number;
  value: unknown;
}

/** A line's work for the writer: validated first, then decided and appended as a unit of the writer's group. */
async function decideRecord(tb: WriteContext, value: unknown, line: number): Promise<Result<number>> {
  if (value === NOT_JSON) return fail({ code: 'ERROR_LINE', message: 'the line is not valid JSON' });
  const { type, data } = (value ?? {}) as { type?: unknown; data?: unknown };
  const kind = typeof type === 'string' ? importLineKinds.get(type) : undefined;
  if (!kind) return fail({ code: 'ERROR_TYPE', field: 'type', message: `unknown line type ${JSON.stringify(type)}` });
  const record = parseRecord(kind.schema, data, kind.codes, errorCodeFor('data'));
  if (!record.ok) return record;
  try {
    const applied = await tb.write(() => decideBatch([record.value as never], kind.decide, tb.state, tb.log, { source: 'import', importLine: line }));
    return applied.ok ? ok(applied.value.events) : applied;
  } catch (error) {
    // The group as a whole failed (the storage): that stops the import.
    if (isStorageError(error)) throw error;
    // A bug in a decider or projector: the writer undid this line alone, the rest of the group stands.
    return fail({ code: 'ERROR_INTERNAL', message: `the line could not be applied: ${error instanceof Error ? error.message : String(error)}` });
  }
}

/**
 * Applies an NDJSON import line by line. A bad line is reported through `onFailure` and the others go on;
 * a line that changes nothing appends nothing, so importing the same file twice adds no event.
 */
export async function importLines(tb: WriteContext, lines: AsyncIterable<string>, onFailure: (failure: LineFailure) => void): Promise<ImportReport> {
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
 * `linesPerGroup` records share a transaction of the writer (and its fsync); between groups the import
 * leaves the write lock free for a moment, so writers of other processes are not starved.
 */
export async function importRecords(
  tb: WriteContext,
  records: AsyncIterable<ImportRecord> | Iterable<ImportRecord>,
  onFailure: (failure: LineFailure) => void,
  linesPerGroup = LINES_PER_GROUP,
): Promise<ImportReport> {
  const report: ImportReport = { lines: 0, applied: 0, failed: 0, events: 0 };
  let group: ImportRecord[] = [];
  const flush = async () => {
    // Submitted in one turn of the event loop: the writer commits them as one group.
    const settled = await Promise.allSettled(group.map(({ value, line }) => decideRecord(tb, value, line)));
    settled.forEach((settledLine, i) => {
      // A line rejected is a fault of the whole group (the storage): the lines are counted, then it stops the import.
      if (settledLine.status === 'rejected') return;
      const outcome = settledLine.value;
      if (outcome.ok) {
        report.applied++;
        report.events += outcome.value;
      } else {
        report.failed++;
        onFailure({ line: group[i].line, errors: outcome.errors });
      }
    });
    group = [];
    const fault = settled.find((line) => line.status === 'rejected');
    if (fault) throw fault.reason;
    await tb.writer.giveTurn();
  };
  for await (const record of records) {
    report.lines++;
    group.push(record);
    if (group.length >= linesPerGroup) await flush();
  }
  if (group.length > 0) await flush();
  return report;
}
