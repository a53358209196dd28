import fs from 'node:fs';
import type { Command } from 'commander';
import { resolveUntil, writePointInTime } from '../audit/point-in-time.ts';
import { UsageError, cliDatabase } from './open.ts';
import { type DatabaseSetting, shownDatabase } from '../storage/database.ts';
import { releaseReadModels } from '../company.ts';
import { servedBuild } from '../read-models/build.ts';
import { rebuildReadTables } from '../read-models/rebuild-read-tables.ts';
import { serveRebuildThread } from '../read-models/rebuild-thread.ts';
import { openSource } from './copy.ts';
import { progressReporter } from './progress.ts';
import { TIME_FORMS } from './times.ts';

// Loaded as the rebuild's thread (the same bundle), this runs the rebuild it was started for, with this release's read models.
serveRebuildThread(releaseReadModels);

export function rebuildCommand(program: Command): void {
  program
    .command('rebuild')
    .description('drop every read table and rebuild it from the event log; with --into, write a point-in-time copy instead')
    .option('--until <seq|time>', `with --into: the log up to this seq or time, ${TIME_FORMS}`)
    .option('--into <file>', 'write a new read-only database holding the log up to --until and the read tables as they were then')
    .option('--json', 'print the report as one JSON object')
    .action(async (options: { until?: string; into?: string; json?: boolean }) => {
      if (options.until !== undefined && options.into === undefined) throw new UsageError('--until needs --into FILE (the live read tables always follow the whole log)');
      if (options.into !== undefined && fs.existsSync(options.into)) throw new UsageError(`${options.into} exists; a point-in-time copy is only written to a new file`);
      const setting = cliDatabase();
      if (options.into !== undefined) return writeCopy(setting, options.until, options.into, options.json);
      return report(await rebuildLive(setting), options.json);
    });
}

/** The read tables rebuilt beside the served ones and swapped in, while servers keep serving and writing. */
async function rebuildLive(setting: DatabaseSetting): Promise<{ events: number; seconds: string }> {
  const progress = progressReporter('rebuild', 'events');
  const started = Date.now();
  try {
    const { events } = await rebuildReadTables(setting, releaseReadModels, {
      onProgress: progress.update,
      onRetry: (reason) => process.stderr.write(`${reason}\n`),
      onBuilt: (line) => process.stderr.write(`${line}\n`),
    });
    return { events, seconds: ((Date.now() - started) / 1000).toFixed(1) };
  } finally {
    progress.stop();
  }
}

/** A point-in-time copy into `into`, from one snapshot of the database on either engine. */
async function writeCopy(setting: DatabaseSetting, untilText: string | undefined, into: string, json: boolean | undefined): Promise<void> {
  const source = await openSource(setting);
  const started = Date.now();
  let until: number | undefined;
  try {
    until = untilText === undefined ? source.copy.count : await resolveUntil({ lastSeq: source.copy.count, firstRecordedSince: source.copy.firstRecordedSince }, untilText);
    if (until === undefined) throw new UsageError(`--until takes a seq or a time, ${TIME_FORMS}`);
    if (until === 0) {
      throw new UsageError(
        untilText === undefined ? 'the log is empty: a point-in-time copy would hold no log' : `--until ${untilText} is before the first event: the copy would hold no log`,
      );
    }
    const progress = progressReporter('rebuild', 'events');
    await writePointInTime(source.copy, shownDatabase(setting), until, into, servedBuild(releaseReadModels, until, progress.update));
    progress.stop();
  } finally {
    await source.close();
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (json) process.stdout.write(`${JSON.stringify({ into, until, seconds: Number(seconds) })}\n`);
  else process.stdout.write(`wrote ${into}: the log up to seq ${until} and its read tables, in ${seconds} s; it is read-only\n`);
}

function report({ events, seconds }: { events: number; seconds: string }, json: boolean | undefined): void {
  process.stdout.write(json ? `${JSON.stringify({ events, seconds: Number(seconds) })}\n` : `rebuilt every projection from ${events} events in ${seconds} s\n`);
}
