import fs from 'node:fs';
import readline from 'node:readline';
import type { Command } from 'commander';
import { importLines } from '../use-cases/import.ts';
import { EXIT } from './exit.ts';
import { UsageError, openCompanyForCli } from './open.ts';

/** The file opened for reading, or the one line saying why it cannot be (missing, a folder, not readable). */
function openToRead(file: string): number {
  try {
    const fd = fs.openSync(file, 'r');
    if (fs.fstatSync(fd).isDirectory()) {
      fs.closeSync(fd);
      throw new UsageError(`cannot read ${file}: it is a folder`);
    }
    return fd;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (error as Error).message}`);
  }
}

export function importCommand(program: Command): void {
  program
    .command('import')
    .description('apply an NDJSON file of {"type", "data"} lines; each line stands alone, bad lines are reported')
    .argument('<file>', 'the file, or - for standard input')
    .option('--json', 'print the report as one JSON object: lines, applied, failed, events')
    .action(async (file: string, options: { json?: boolean }) => {
      const input = file === '-' ? process.stdin : fs.createReadStream('', { fd: openToRead(file) });
      const tb = await openCompanyForCli();
      if (tb.pointInTime !== undefined) {
        await tb.close();
        throw new UsageError(`this database is a point-in-time copy of the log up to seq ${tb.pointInTime}; it accepts no imports`);
      }
      const report = await importLines(tb, readline.createInterface({ input, crlfDelay: Infinity }), ({ line, errors }) => {
        for (const e of errors) process.stderr.write(`line ${line}: ${e.code}${e.field ? ` (${e.field})` : ''}: ${e.message}\n`);
      });
      await tb.close();
      process.stdout.write(
        options.json ? `${JSON.stringify(report)}\n` : `${report.lines} lines: ${report.applied} applied, ${report.failed} failed, ${report.events} events appended\n`,
      );
      if (report.failed > 0) process.exitCode = EXIT.problemsFound;
    });
}
