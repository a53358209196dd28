import fs from 'node:fs';
import type { Command } from 'commander';
import { UsageError, cliDatabase } from './open.ts';
import { shownDatabase } from '../storage/database.ts';
import { openStored } from '../storage/open-engine.ts';

export function backupCommand(program: Command): void {
  program
    .command('backup')
    .description('write a consistent copy of the database to a new FILE, while a server keeps serving and writing it')
    .argument('<file>', 'the copy to write; it must not exist')
    .option('--json', 'print the report as one JSON object')
    .action(async (file: string, options: { json?: boolean }) => {
      const setting = cliDatabase();
      const stored = openStored(setting);
      const started = Date.now();
      let pages: number;
      try {
        // A PostgreSQL database is backed up by PostgreSQL's own tools, which its operators already run.
        if (!stored.backup) {
          throw new UsageError('on PostgreSQL, back up with its own tools: pg_dump for a copy, or base backups with WAL archiving (README, "Running on PostgreSQL")');
        }
        if (fs.existsSync(file)) throw new UsageError(`${file} exists; a backup is only written to a new file`);
        ({ pages } = await stored.backup(file));
      } catch (error) {
        if (error instanceof TypeError) throw new UsageError(`cannot write ${file}: ${error.message}`);
        throw error;
      } finally {
        await stored.close();
      }
      const seconds = Number(((Date.now() - started) / 1000).toFixed(1));
      const bytes = fs.statSync(file).size;
      const from = shownDatabase(setting);
      process.stdout.write(
        options.json
          ? `${JSON.stringify({ from, into: file, pages, bytes, seconds })}\n`
          : `backed up ${from} to ${file}: ${pages} pages, ${(bytes / 1e6).toFixed(1)} MB, in ${seconds} s; check it with tradebook verify --db ${file}\n`,
      );
    });
}
