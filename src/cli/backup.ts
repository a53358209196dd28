import fs from 'node:fs';
import type { Command } from 'commander';
import { backupTo } from '../storage/sqlite/backup.ts';
import { UsageError, databasePath, openExistingReadonly } from './open.ts';
import { databaseSetting } from '../storage/database.ts';

export function backupCommand(program: Command): void {
  program
    .command('backup')
    .description('write a consistent copy of the database to a new FILE, while a server keeps serving and writing it')
    .argument('<file>', 'the copy to write; it must not exist')
    .option('--json', 'print the report as one JSON object')
    .action(async (file: string, options: { json?: boolean }) => {
      // A PostgreSQL database is backed up by PostgreSQL's own tools, which its operators already run.
      if (databaseSetting().engine === 'postgres') {
        throw new UsageError('on PostgreSQL, back up with its own tools: pg_dump for a copy, or base backups with WAL archiving (README, "Running on PostgreSQL")');
      }
      if (fs.existsSync(file)) throw new UsageError(`${file} exists; a backup is only written to a new file`);
      const db = openExistingReadonly();
      const started = Date.now();
      let pages: number;
      try {
        ({ pages } = await backupTo(db, file));
      } catch (error) {
        if (error instanceof TypeError) throw new UsageError(`cannot write ${file}: ${error.message}`);
        throw error;
      } finally {
        db.close();
      }
      const seconds = Number(((Date.now() - started) / 1000).toFixed(1));
      const bytes = fs.statSync(file).size;
      process.stdout.write(
        options.json
          ? `${JSON.stringify({ from: databasePath(), into: file, pages, bytes, seconds })}\n`
          : `backed up ${databasePath()} to ${file}: ${pages} pages, ${(bytes / 1e6).toFixed(1)} MB, in ${seconds} s; check it with TRADEBOOK_DB=${file} tradebook verify\n`,
      );
    });
}
