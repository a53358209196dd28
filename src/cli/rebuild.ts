import type { Command } from 'commander';
import { rebuild } from '../projections/rebuild.ts';
import { openForCli } from './open.ts';
import { progressReporter } from './progress.ts';

export function rebuildCommand(program: Command): void {
  program
    .command('rebuild')
    .description('drop every read table and rebuild it from the event log')
    .action(async () => {
      const tb = await openForCli();
      const progress = progressReporter('rebuild', 'events');
      const started = Date.now();
      const { events } = rebuild(tb.db, { onProgress: progress.update });
      progress.stop();
      tb.close();
      process.stdout.write(`rebuilt every projection from ${events} events in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    });
}
