import type { WriteContext } from './write-context.ts';
import type { CommandState } from '../commands/command-state.ts';
import { type ImportLineKind, importLineKinds } from '../commands/import-lines.ts';
import type { EventMeta, NewEvent } from '../events/store.ts';
import { parseRecord } from '../lib/validation.ts';
import { type DomainError, errorCodeFor, fail, ok, type Result } from '../lib/result.ts';
import { isStorageError } from '../storage/errors.ts';
import { decideBatch, decideRecords } from './decide-batch.ts';

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
 * A group's lines are decided and appended together as one unit of the writer the server writes through, so they
 * share a few reads, one insert, one commit and one fsync, and the write lock is held for one group at a time.
 * A group is sized to take about GROUP_MILLISECONDS at the pace of the one before it: long enough that the turn
 * given after each group (`giveTurn`, some 25 ms) is a small share of the import, short enough that a server
 * writing beside it waits a fraction of a second. Lines cost what their type and the tables' sizes make them (a
 * product appended at the end of its table, a contractor placed among 100,000), so the size follows the pace.
 */
const GROUP_MILLISECONDS = 250;
const FIRST_GROUP_LINES = 200;
const MOST_GROUP_LINES = 2_000;
const FEWEST_GROUP_LINES = 20;

/** The next group's lines: as many as take GROUP_MILLISECONDS at the last group's pace, at most twice as many. */
export function nextGroupLines(lines: number, milliseconds: number): number {
  const atPace = Math.round((lines * GROUP_MILLISECONDS) / Math.max(milliseconds, 1));
  return Math.min(MOST_GROUP_LINES, 2 * lines, Math.max(FEWEST_GROUP_LINES, atPace));
}

/** What `JSON.parse` failed on: a line that is not JSON. */
const NOT_JSON = Symbol('not JSON');

/** One import record: a line's parsed JSON (`{type, data}` when well formed) and its line number. */
export interface ImportRecord {
  line: number;
  value: unknown;
}

/** A line that parsed: its kind (how it is decided) and its record. */
interface LineInput {
  kind: ImportLineKind;
  record: never;
}

/** A line's value checked before the writer sees it: JSON, a known type, a record of that type's schema. */
function parseLine(value: unknown): Result<LineInput> {
  if (value === NOT_JSON) return fail({ code: 'ERROR_LINE', message: 'the line is not valid JSON' });
  const { type, data } = (value ?? {}) as { type?: unknown; data?: unknown };
  const kind = typeof type === 'string' ? importLineKinds.get(type) : undefined;
  if (!kind) return fail({ code: 'ERROR_TYPE', field: 'type', message: `unknown line type ${JSON.stringify(type)}` });
  const record = parseRecord(kind.schema, data, kind.codes, errorCodeFor('data'));
  return record.ok ? ok({ kind, record: record.value as never }) : record;
}

const decideLine = (input: LineInput, state: CommandState) => input.kind.decide(input.record, state);
/** Who appended a line's events: the import, the line, and the run when the import is a recorded run. */
const lineMeta = (line: number, run: string | undefined): EventMeta => (run === undefined ? { source: 'import', importLine: line } : { source: 'import', importLine: line, importRun: run });

/** How records are imported: `linesPerGroup` fixes the size of a group (see `importRecords`); `run` names the import run the events are part of. */
export interface ImportOptions {
  linesPerGroup?: number;
  run?: string;
}

/**
 * A group's lines decided and appended as one unit of the writer, batch-level: the state they ask for read in a
 * few queries, their events appended with one insert. A refused line appends nothing and the others are decided
 * after it as if it were not there, exactly as line by line. Each line's outcome: its events' count, its
 * problems, or undefined where it gave no input.
 */
async function applyGroup(tb: WriteContext, lines: number[], inputs: (LineInput | undefined)[], run: string | undefined): Promise<(Result<number> | undefined)[]> {
  if (inputs.every((input) => input === undefined)) return inputs.map(() => undefined);
  // A refused line is an outcome, not a failure of the unit: nothing here asks the writer to undo the group.
  return tb.writer.run(async () => {
    const decisions = await decideRecords(inputs, decideLine, tb.state);
    const events: NewEvent[] = [];
    const metas: EventMeta[] = [];
    decisions.forEach((decision, i) => {
      if (!decision?.ok) return;
      const meta = lineMeta(lines[i], run);
      for (const event of decision.value.events) {
        events.push(event);
        metas.push(meta);
      }
    });
    await tb.log.append(events, metas);
    return decisions.map((decision) => (decision === undefined || !decision.ok ? decision : ok(decision.value.events.length)));
  });
}

/** One line alone as a unit of the writer: what a group falls back to when applying it together threw. */
async function applyLine(tb: WriteContext, input: LineInput, line: number, run: string | undefined): Promise<Result<number>> {
  try {
    const applied = await tb.write(() => decideBatch([input], decideLine, tb.state, tb.log, lineMeta(line, run)));
    return applied.ok ? ok(applied.value.events) : applied;
  } catch (error) {
    // The group as a whole failed (the storage): that stops the import.
    if (isStorageError(error)) throw error;
    // A bug in a decider or projector: the writer undid this line alone, the rest of the group stands.
    return fail({ code: 'ERROR_INTERNAL', message: `the line could not be applied: ${error instanceof Error ? error.message : String(error)}` });
  }
}

/**
 * Each record's outcome: lines that did not parse are refused before the writer; the others are applied as one
 * group, or, when that throws (a bug in a decider or projector, not the storage), each alone, so the bug fails
 * its own line and the rest go in.
 */
async function applyRecords(tb: WriteContext, group: ImportRecord[], run: string | undefined): Promise<Result<number>[]> {
  const parsed = group.map(({ value }) => parseLine(value));
  const inputs = parsed.map((p) => (p.ok ? p.value : undefined));
  let outcomes: (Result<number> | undefined)[];
  try {
    outcomes = await applyGroup(tb, group.map((r) => r.line), inputs, run);
  } catch (error) {
    if (isStorageError(error)) throw error;
    outcomes = await Promise.all(inputs.map((input, i) => input && applyLine(tb, input, group[i].line, run)));
  }
  return parsed.map((p, i) => (p.ok ? outcomes[i]! : p));
}

/**
 * Applies an NDJSON import line by line. A bad line is reported through `onFailure` and the others go on;
 * a line that changes nothing appends nothing, so importing the same file twice adds no event.
 */
export async function importLines(tb: WriteContext, lines: AsyncIterable<string>, onFailure: (failure: LineFailure) => void, options: ImportOptions = {}): Promise<ImportReport> {
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
  const report = await importRecords(tb, records(), onFailure, options);
  return { ...report, lines: count };
}

/**
 * Applies import records that are already values (the seed generates them: no JSON text round trip), exactly
 * as `importLines` applies lines: the same schemas, deciders and event store, each record standing alone.
 * A group of records shares a transaction of the writer (and its fsync): `options.linesPerGroup` records when it is
 * given, otherwise as many as take about GROUP_MILLISECONDS (`nextGroupLines`). Between groups the import
 * leaves the write lock free for a moment, so writers of other processes are not starved.
 */
export async function importRecords(
  tb: WriteContext,
  records: AsyncIterable<ImportRecord> | Iterable<ImportRecord>,
  onFailure: (failure: LineFailure) => void,
  { linesPerGroup, run }: ImportOptions = {},
): Promise<ImportReport> {
  const report: ImportReport = { lines: 0, applied: 0, failed: 0, events: 0 };
  let groupLines = linesPerGroup ?? FIRST_GROUP_LINES;
  let group: ImportRecord[] = [];
  const flush = async () => {
    const started = performance.now();
    const outcomes = await applyRecords(tb, group, run);
    if (linesPerGroup === undefined) groupLines = nextGroupLines(group.length, performance.now() - started);
    outcomes.forEach((outcome, i) => {
      if (outcome.ok) {
        report.applied++;
        report.events += outcome.value;
      } else {
        report.failed++;
        onFailure({ line: group[i].line, errors: outcome.errors });
      }
    });
    group = [];
    await tb.writer.giveTurn();
  };
  let lastType: unknown;
  for await (const record of records) {
    report.lines++;
    const type = (record.value as { type?: unknown } | null)?.type;
    // Lines of another type may cost many times as much (a sale after categories): their groups start again at the
    // first size and grow at their own pace, so the first of them does not hold the lock for seconds.
    if (linesPerGroup === undefined && type !== lastType) {
      if (group.length >= FIRST_GROUP_LINES) await flush();
      groupLines = Math.min(groupLines, FIRST_GROUP_LINES);
    }
    lastType = type;
    group.push(record);
    if (group.length >= groupLines) await flush();
  }
  if (group.length > 0) await flush();
  return report;
}
