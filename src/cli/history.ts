import type { Command } from 'commander';
import type { HistoryEntry } from '../audit/history.ts';
import { UsageError, openHistoryForCli } from './open.ts';
import { showStoredTime } from './times.ts';

/** One line an event: `2026-11-22 12:00:00+03:00  #7 v2 ProductEdited  key 1 "shop"  salePrice: 1000 → 1250`. */
function historyLine(e: HistoryEntry): string {
  const changes = Object.entries(e.changes)
    .map(([field, value]) => `${field}: ${field in e.before ? `${JSON.stringify(e.before[field])} → ` : ''}${JSON.stringify(value)}`)
    .join(', ');
  return `${showStoredTime(e.recordedAt)}  #${e.seq} v${e.streamVersion} ${e.type}  ${e.who}${changes === '' ? '' : `  ${changes}`}`;
}

export function historyCommand(program: Command): void {
  program
    .command('history')
    .description('every event of one record in order: time (Moscow), who, each field it changed before → after')
    .argument('<stream>', 'the record, e.g. product-42')
    .option('--json', 'print one JSON array')
    .action(async (stream: string, options: { json?: boolean }) => {
      const { history: historyOf, close } = await openHistoryForCli();
      const history = await historyOf(stream).finally(close);
      if (history.length === 0) throw new UsageError(`no events in stream ${stream}`);
      process.stdout.write(options.json ? `${JSON.stringify(history)}\n` : history.map((e) => `${historyLine(e)}\n`).join(''));
    });
}
