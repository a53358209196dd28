import type { Command } from 'commander';
import { logEntry } from '../audit/log-view.ts';
import { eventDefinitions } from '../events/registry.ts';
import { parseMoment } from '../lib/clock.ts';
import { UsageError, openLogForCli, parseWholeNumber } from './open.ts';
import { writeOut } from './stdout.ts';
import { TIME_FORMS } from './times.ts';

const PAGE = 5000;

/** The event type `--type` names, in any case (`productedited` → ProductEdited); a name of none is a usage error. */
function eventType(given: string): string {
  const types = eventDefinitions.map((d) => d.type);
  const type = types.find((t) => t.toLowerCase() === given.toLowerCase());
  if (type === undefined) throw new UsageError(`--type: no event type ${JSON.stringify(given)}; the types are ${types.join(', ')}`);
  return type;
}

export function eventsCommand(program: Command): void {
  program
    .command('events')
    .description('print the event log as NDJSON, in order')
    .option('--after <seq>', 'only events after this seq', '0')
    .option('--stream <stream>', 'only the events of this stream, e.g. product-42')
    .option('--type <type>', 'only events of this type, in any case, e.g. ProductEdited or documentposted')
    .option('--since <time>', `only events recorded at or after this time: ${TIME_FORMS}`)
    .action(async (options: { after: string; stream?: string; type?: string; since?: string }) => {
      const after = parseWholeNumber(options.after, '--after');
      const type = options.type === undefined ? undefined : eventType(options.type);
      const since = options.since === undefined ? undefined : parseMoment(options.since);
      if (options.since !== undefined && since === undefined) throw new UsageError(`--since takes ${TIME_FORMS}`);
      const { eventsAfter, close } = await openLogForCli();
      const filter = { stream: options.stream, type, since: since === undefined ? undefined : new Date(since).toISOString() };
      try {
        // A page at a time, so memory stays flat on any log size.
        for (let from = after; ; ) {
          const page = await eventsAfter(from, PAGE, filter);
          for (const row of page) await writeOut(`${JSON.stringify(logEntry(row))}\n`);
          if (page.length < PAGE) break;
          from = page[page.length - 1].seq;
        }
      } finally {
        await close();
      }
    });
}
