import type { Command } from 'commander';
import type { ImportRun } from '../records/import-run/events.ts';
import { columns } from './columns.ts';
import { openLogForCli } from './open.ts';
import { showStoredTime } from './times.ts';

const PAGE = 5000;

/** An import run as the command line lists it: when it ended (Moscow time) and its record. */
type ListedRun = ImportRun & { recorded: string };

export function importsCommand(program: Command): void {
  program
    .command('imports')
    .description('list the import runs, oldest first: id, when, who, note, file, size, SHA-256, lines, events')
    .option('--json', 'print one JSON array of the runs as recorded, each with the time it ended')
    .action(async (options: { json?: boolean }) => {
      const { eventsAfter, close } = await openLogForCli();
      const runs: ListedRun[] = [];
      try {
        // Through the log's type index, a page at a time: runs are few beside the events they appended.
        for (let from = 0; ; ) {
          const page = await eventsAfter(from, PAGE, { type: 'ImportRunRecorded' });
          for (const row of page) runs.push({ ...(JSON.parse(row.data) as ImportRun), recorded: showStoredTime(row.recorded_at)! });
          if (page.length < PAGE) break;
          from = page[page.length - 1].seq;
        }
      } finally {
        await close();
      }
      if (options.json) {
        process.stdout.write(`${JSON.stringify(runs)}\n`);
        return;
      }
      const header = ['ID', 'WHEN', 'WHO', 'NOTE', 'FILE', 'SIZE', 'SHA256', 'LINES', 'EVENTS'];
      const rows = runs.map((r) => [r.runId, r.recorded, r.user, r.note ?? '-', r.file, String(r.size), r.sha256, `${r.lines} (${r.failed} failed)`, String(r.events)]);
      process.stdout.write(columns([header, ...rows]));
    });
}
