import fs from 'node:fs';
import readline from 'node:readline';
import type { Command } from 'commander';
import { importLines } from '../use-cases/import.ts';
import { UsageError, openForCli } from './open.ts';

export function importCommand(program: Command): void {
  program
    .command('import')
    .description('apply an NDJSON file of {"type", "data"} lines; each line stands alone, bad lines are reported')
    .argument('<file>', 'the file, or - for standard input')
    .action(async (file: string) => {
      const input = file === '-' ? process.stdin : fs.createReadStream(file);
      const tb = await openForCli();
      if (tb.pointInTime !== undefined) {
        tb.close();
        throw new UsageError(`this database is a point-in-time copy of the log up to seq ${tb.pointInTime}; it accepts no imports`);
      }
      const report = await importLines(tb, readline.createInterface({ input, crlfDelay: Infinity }), ({ line, errors }) => {
        for (const e of errors) process.stderr.write(`line ${line}: ${e.code}${e.field ? ` (${e.field})` : ''}: ${e.message}\n`);
      });
      tb.close();
      process.stdout.write(`${report.lines} lines: ${report.applied} applied, ${report.failed} failed, ${report.events} events appended\n`);
      if (report.failed > 0) process.exitCode = 1;
    });
}
