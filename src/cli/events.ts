import type { Command } from 'commander';
import { openSqlite } from '../db/open.ts';
import { readEvents } from '../events/store.ts';
import { databasePath, parseWholeNumber } from './open.ts';

/** Writes a line to stdout, waiting when the pipe is full so memory stays flat on any log size. */
async function writeLine(text: string): Promise<void> {
  if (!process.stdout.write(`${text}\n`)) await new Promise((resolve) => process.stdout.once('drain', resolve));
}

export function eventsCommand(program: Command): void {
  program
    .command('events')
    .description('print the event log as NDJSON, in order')
    .option('--after <seq>', 'only events after this seq', '0')
    .option('--stream <stream>', 'only the events of this stream, e.g. product-42')
    .action(async (options: { after: string; stream?: string }) => {
      const after = parseWholeNumber(options.after, '--after');
      const db = openSqlite(databasePath(), { readonly: true });
      for (const row of readEvents(db, after)) {
        if (options.stream !== undefined && row.stream !== options.stream) continue;
        await writeLine(
          JSON.stringify({
            seq: row.seq,
            stream: row.stream,
            streamVersion: row.stream_version,
            type: row.type,
            schemaVersion: row.schema_version,
            recordedAt: row.recorded_at,
            meta: JSON.parse(row.meta),
            data: JSON.parse(row.data),
            hash: row.hash,
          }),
        );
      }
      db.close();
    });
}
