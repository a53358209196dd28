import type { Command } from 'commander';
import type { HistoryEntry } from '../audit/history.ts';
import { UsageError, openHistoryForCli } from './open.ts';
import { writeOut } from './stdout.ts';
import { showStoredTime } from './times.ts';

/** Entries read and written at a time. */
const PAGE = 1000;

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
        const length = await log.streamLength(stream);
        if (length === 0) throw new UsageError(`no events in stream ${stream}`);
        // A page at a time, written as read: a record of 50,000 events is never held whole.
        for (let from = 1; from <= length; from += PAGE) {
          const page = await log.history(stream, from, Math.min(length, from + PAGE - 1));
          const text = options.json ? page.map((e) => JSON.stringify(e)).join(',') : page.map((e) => `${historyLine(e)}\n`).join('');
          await writeOut(options.json ? `${from === 1 ? '[' : ','}${text}${from + PAGE > length ? ']\n' : ''}` : text);
        }
      } finally {
        await log.close();
      }
    });
}
