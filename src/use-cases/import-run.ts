import { createHash } from 'node:crypto';
import readline from 'node:readline';
import { Transform, type Readable } from 'node:stream';
import { customAlphabet } from 'nanoid';
import { type ImportRun, importRunStream } from '../records/import-run/events.ts';
import { ok } from '../lib/result.ts';
import { type ImportReport, type LineFailure, importLines } from './import.ts';
import type { WriteContext } from './write-context.ts';

/** Who runs an import and why, as the run's record keeps it. */
export interface ImportProvenance {
  /** The file's name as given (`-` for standard input). */
  file: string;
  user: string;
  note: string | null;
}

/** Digits, so the run's stream `import-<runId>` is named like every record's (`<kind>-<number>`), page included. */
const newRunId = customAlphabet('0123456789', 16);

/** A pass-through that counts the bytes going by and hashes them: the digest of exactly what was imported. */
function digesting(): Transform & { size: number; sha256(): string } {
  const hash = createHash('sha256');
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      stream.size += chunk.length;
      done(null, chunk);
    },
  }) as Transform & { size: number; sha256(): string };
  stream.size = 0;
  stream.sha256 = () => hash.digest('hex');
  return stream;
}

/**
 * Imports an NDJSON file as one recorded run: every event it appends names the run in its meta, and at its end the
 * run itself is appended (`ImportRunRecorded` in `import-<runId>`): who, the file's name, its size and SHA-256 as
 * read, and the report. A run that appended nothing is not recorded (`run` null): re-running a file appends
 * nothing (decisions.md §6), and no fact in the log came from it. A run that stops midway (a crash, a full disk)
 * leaves its events naming a run with no record.
 */
export async function importRun(tb: WriteContext, input: Readable, provenance: ImportProvenance, onFailure: (failure: LineFailure) => void): Promise<ImportReport & { run: string | null }> {
  const runId = newRunId();
  const started = new Date().toISOString();
  const digest = digesting();
  // A read that fails (a disk error) fails the import, as reading the file straight would: `pipe` alone would not pass it on.
  input.once('error', (error) => digest.destroy(error));
  const lines = readline.createInterface({ input: input.pipe(digest), crlfDelay: Infinity });
  const report = await importLines(tb, lines, onFailure, { run: runId });
  if (report.events === 0) return { ...report, run: null };
  const run: ImportRun = { runId, ...provenance, size: digest.size, sha256: digest.sha256(), started, ...report };
  await tb.write(async () => ok(await tb.log.append([{ stream: importRunStream(runId), type: 'ImportRunRecorded', data: run, expectedVersion: 'no_stream' }], { source: 'import', importRun: runId })));
  return { ...report, run: runId };
}
