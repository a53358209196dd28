import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { rebuild, type RebuildProgress } from '../projections/rebuild.ts';
import { openForCli } from './open.ts';

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
      process.stderr.write(`rebuild: ${done}/${total} events, ${rate(done)} events/s\n`);
    },
    stop: () => {},
  };
}

export function rebuildCommand(program: Command): void {
  program
    .command('rebuild')
    .description('drop every read table and rebuild it from the event log')
    .action(async () => {
      const tb = await openForCli();
      const progress = progressReporter();
      const started = Date.now();
      const { events } = rebuild(tb.db, { onProgress: progress.update });
      progress.stop();
      tb.close();
      process.stdout.write(`rebuilt every projection from ${events} events in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    });
}
