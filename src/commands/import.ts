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

function decideLine(tb: Tradebook, text: string, line: number): Result<number> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return fail({ code: 'ERROR_LINE', message: 'the line is not valid JSON' });
  }
  const { type, data } = (parsed ?? {}) as { type?: unknown; data?: unknown };
  const kind = typeof type === 'string' ? importLineKinds[type] : undefined;
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
 * Applies an NDJSON import line by line. A bad line is reported through `onFailure` and the others go on;
 * a line that changes nothing appends nothing, so importing the same file twice adds no event.
 */
export async function importLines(tb: Tradebook, lines: AsyncIterable<string>, onFailure: (failure: LineFailure) => void): Promise<ImportReport> {
  const report: ImportReport = { lines: 0, applied: 0, failed: 0, events: 0 };
  let group: { text: string; line: number }[] = [];
  const flush = () => {
    tb.db
      .transaction(() => {
        for (const { text, line } of group) {
          const outcome = decideLine(tb, text, line);
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
  for await (const text of lines) {
    report.lines++;
    if (text.trim() === '') continue;
    group.push({ text, line: report.lines });
    if (group.length >= LINES_PER_COMMIT) flush();
  }
  if (group.length > 0) flush();
  return report;
}
