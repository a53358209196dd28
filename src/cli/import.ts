import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { importRun } from '../use-cases/import-run.ts';
import { EXIT } from './exit.ts';
import { UsageError, openCompanyForCli } from './open.ts';
import { osUser } from './os-user.ts';

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
    .description('apply an NDJSON file of {"type", "data"} lines (the format: docs/import.md); each line stands alone, bad lines are reported; the run is recorded (tradebook imports)')
    .argument('<file>', 'the file, or - for standard input')
    .option('--note <text>', 'why the file is imported, kept with the run')
    .option('--json', 'print the report as one JSON object: lines, applied, failed, events, run (null when nothing was appended)')
    .addHelpText('after', '\nThe line types, their fields and an example line of each: docs/import.md; a JSON Schema of each type: docs/import-schema.json.')
    .action(async (file: string, options: { note?: string; json?: boolean }) => {
      const input = file === '-' ? process.stdin : fs.createReadStream('', { fd: openToRead(file) });
      const tb = await openCompanyForCli();
      if (tb.pointInTime !== undefined) {
        await tb.close();
        throw new UsageError(`this database is a point-in-time copy of the log up to seq ${tb.pointInTime}; it accepts no imports`);
      }
      const provenance = { file: file === '-' ? '-' : path.basename(file), user: osUser(), note: options.note ?? null };
      const report = await importRun(tb, input, provenance, ({ line, errors }) => {
        for (const e of errors) process.stderr.write(`line ${line}: ${e.code}${e.field ? ` (${e.field})` : ''}: ${e.message}\n`);
      }).finally(() => tb.close());
      process.stdout.write(
        options.json
          ? `${JSON.stringify(report)}\n`
          : `${report.lines} lines: ${report.applied} applied, ${report.failed} failed, ${report.events} events appended${report.run === null ? '' : ` (import run ${report.run})`}\n`,
      );
      if (report.failed > 0) process.exitCode = EXIT.problemsFound;
    });
}
