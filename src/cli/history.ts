import type { Command } from 'commander';
import type { HistoryEntry } from '../audit/history.ts';
import { UsageError, openHistoryForCli } from './open.ts';
import { writeOut } from './stdout.ts';
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
      const log = await openHistoryForCli();
      try {
        // A chunk at a time, written as read: a record of 50,000 events is never held whole.
        let written = 0;
        for await (const chunk of log.wholeHistory(stream)) {
          if (written === 0 && chunk.length === 0) throw new UsageError(`no events in stream ${stream}`);
          const text = options.json ? chunk.map((e) => JSON.stringify(e)).join(',') : chunk.map((e) => `${historyLine(e)}\n`).join('');
          await writeOut(options.json && chunk.length > 0 ? `${written === 0 ? '[' : ','}${text}` : text);
          written += chunk.length;
        }
        if (options.json) await writeOut(']\n');
      } finally {
        await log.close();
      }
    });
}
