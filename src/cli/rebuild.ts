import fs from 'node:fs';
import type { Command } from 'commander';
import { lastSeq } from '../events/store.ts';
import { resolveUntil, writePointInTime } from '../audit/point-in-time.ts';
import { UsageError, databasePath, openForCli } from './open.ts';
import { rebuildPostgres } from '../projections/rebuild-postgres.ts';
import { databaseSetting, notYetOnPostgres } from '../storage/database.ts';
import { openPostgres } from '../storage/postgres/connection.ts';
import { storageErrorOf, unreachableOf } from '../storage/postgres/errors.ts';
import { PostgresWriter } from '../storage/postgres/writer.ts';
import { progressReporter } from './progress.ts';
import { rebuildOnThread } from './rebuild-thread.ts';
import { TIME_FORMS } from './times.ts';

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
      const setting = databaseSetting();
      if (setting.engine === 'postgres') {
        if (options.into !== undefined) throw new UsageError(notYetOnPostgres('`tradebook rebuild --into`'));
        return report(await rebuildOnPostgres(setting.url), options.json);
      }
      const tb = await openForCli();
      const until = options.until === undefined ? lastSeq(tb.db) : resolveUntil(tb.db, options.until);
      if (until === undefined) {
        tb.close();
        throw new UsageError(`--until takes a seq or a time, ${TIME_FORMS}`);
      }
      if (options.into !== undefined && until === 0) {
        tb.close();
        throw new UsageError(`--until ${options.until} is before the first event: the copy would hold no log`);
      }
      const progress = progressReporter('rebuild', 'events');
      const started = Date.now();
      const { events } = options.into === undefined ? await rebuildOnThread(databasePath(), progress.update, (reason) => process.stderr.write(`${reason}\n`)) : await writePointInTime(tb.db, until, options.into, { onProgress: progress.update });
      progress.stop();
      tb.close();
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      if (options.into === undefined) return report({ events, seconds }, options.json);
      if (options.json) process.stdout.write(`${JSON.stringify({ into: options.into, until, seconds: Number(seconds) })}\n`);
      else process.stdout.write(`wrote ${options.into}: the log up to seq ${until} and its read tables, in ${seconds} s; it is read-only\n`);
    });
}

function report({ events, seconds }: { events: number; seconds: string }, json: boolean | undefined): void {
  process.stdout.write(json ? `${JSON.stringify({ events, seconds: Number(seconds) })}\n` : `rebuilt every projection from ${events} events in ${seconds} s\n`);
}

/**
 * Builds beside the served tables on a connection of its own and swaps them in under the chain head's lock,
 * while servers keep serving and writing.
 */
async function rebuildOnPostgres(url: string): Promise<{ events: number; seconds: string }> {
  const db = openPostgres(url, { poolSize: 1 });
  const progress = progressReporter('rebuild', 'events');
  const started = Date.now();
  try {
    const { events } = await rebuildPostgres(db.session, new PostgresWriter(db.session), { onProgress: progress.update }).catch((error: unknown) => {
      throw unreachableOf(error, url) ?? storageErrorOf(error) ?? error;
    });
    return { events, seconds: ((Date.now() - started) / 1000).toFixed(1) };
  } finally {
    progress.stop();
    await db.close();
  }
}
