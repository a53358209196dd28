import fs from 'node:fs';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { lastSeq } from '../events/store.ts';
import { resolveUntil, writePointInTime } from '../projections/point-in-time.ts';
import { rebuild, type RebuildProgress } from '../projections/rebuild.ts';
import { UsageError, openForCli } from './open.ts';

/** A progress bar with events/s and ETA on a terminal; a plain line now and then otherwise. */
function progressReporter(): { update: (p: RebuildProgress) => void; stop: () => void } {
  const started = Date.now();
  const rate = (done: number) => Math.round(done / Math.max(0.001, (Date.now() - started) / 1000));
  if (process.stderr.isTTY) {
    const bar = new SingleBar({ format: 'rebuild [{bar}] {percentage}% | {value}/{total} events | {rate} events/s | ETA {eta}s', stream: process.stderr });
    let begun = false;
    return {
      update: ({ done, total }) => {
        if (!begun) bar.start(total, 0, { rate: 0 });
        begun = true;
        bar.update(done, { rate: rate(done) });
      },
      stop: () => bar.stop(),
    };
  }
  let lastLine = 0;
  return {
    update: ({ done, total }) => {
      if (Date.now() - lastLine < 1000 && done < total) return;
      lastLine = Date.now();
      const eta = Math.ceil((total - done) / Math.max(1, rate(done)));
      process.stderr.write(`rebuild: ${done}/${total} events, ${rate(done)} events/s, ETA ${eta}s\n`);
    },
    stop: () => {},
  };
}

export function rebuildCommand(program: Command): void {
  program
    .command('rebuild')
    .description('drop every read table and rebuild it from the event log; with --into, write a point-in-time copy instead')
    .option('--until <seq|time>', 'with --into: the log up to this seq or "YYYY-MM-DD HH:MM:SS" (Moscow time)')
    .option('--into <file>', 'write a new read-only database holding the log up to --until and the read tables as they were then')
    .action(async (options: { until?: string; into?: string }) => {
      if (options.until !== undefined && options.into === undefined) throw new UsageError('--until needs --into FILE (the live read tables always follow the whole log)');
      if (options.into !== undefined && fs.existsSync(options.into)) throw new UsageError(`${options.into} exists; a point-in-time copy is only written to a new file`);
      const tb = await openForCli();
      const until = options.until === undefined ? lastSeq(tb.db) : resolveUntil(tb.db, options.until);
      if (until === undefined) {
        tb.close();
        throw new UsageError('--until takes a seq or "YYYY-MM-DD HH:MM:SS" (Moscow time)');
      }
      const progress = progressReporter();
      const started = Date.now();
      const { events } = options.into === undefined ? rebuild(tb.db, { onProgress: progress.update }) : await writePointInTime(tb.db, until, options.into, { onProgress: progress.update });
      progress.stop();
      tb.close();
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(
        options.into === undefined
          ? `rebuilt every projection from ${events} events in ${seconds} s\n`
          : `wrote ${options.into}: the log up to seq ${until} and its read tables, in ${seconds} s; it is read-only\n`,
      );
    });
}
