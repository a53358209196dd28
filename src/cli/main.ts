import { Command, CommanderError } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { DatabaseUnreachable, NotADatabase } from '../storage/errors.ts';
import { storageErrorOf } from '../storage/open-engine.ts';
import { anchorCommands } from './anchor.ts';
import { backupCommand } from './backup.ts';
import { copyCommand } from './copy.ts';
import { eventsCommand } from './events.ts';
import { historyCommand } from './history.ts';
import { importCommand } from './import.ts';
import { importsCommand } from './imports.ts';
import { keysCommand } from './keys.ts';
import { EXIT } from './exit.ts';
import { UsageError, chooseDatabase } from './open.ts';
import { rebuildCommand } from './rebuild.ts';
import { verifyCommand } from './verify.ts';
import { seedCommand } from './seed.ts';

const DATABASE_HELP = `
Every command works on one database: --db, else the environment variable TRADEBOOK_DB (a SQLite file, or a
postgres:// URL), else data/tradebook.db. The import format: docs/import.md.`;

export async function main(argv: string[]): Promise<void> {
  // A reader that stops early (`tradebook events | head -1`) closes the pipe: the command's work is done.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(EXIT.ok);
  });
  const program = new Command('tradebook')
    .description('tradebook: the event-sourced trade-accounting service')
    .version(packageJson.version, '-V, --version', 'print the version')
    .option('--db <database>', 'the database: a SQLite file or a postgres:// URL (default: TRADEBOOK_DB, else data/tradebook.db)')
    .addHelpText('after', DATABASE_HELP)
    // Every command's help lists --db too: it is given before or after the command's name.
    .configureHelp({ showGlobalOptions: true })
    .hook('preAction', (command) => chooseDatabase(command.opts<{ db?: string }>().db))
    .exitOverride();
  keysCommand(program);
  importCommand(program);
  importsCommand(program);
  eventsCommand(program);
  historyCommand(program);
  rebuildCommand(program);
  verifyCommand(program);
  seedCommand(program);
  anchorCommands(program);
  backupCommand(program);
  copyCommand(program);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has said what was wrong (an unknown option, a missing argument); help and --version are no error.
      process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    // A usage problem, a database out of reach or not a database, or a storage fault (disk full, read-only) is one
    // line, not a stack trace.
    const known = error instanceof UsageError || error instanceof DatabaseUnreachable || error instanceof NotADatabase ? error : storageErrorOf(error);
    if (known) {
      process.stderr.write(`tradebook: ${known.message}\n`);
      process.exitCode = EXIT.usage;
      return;
    }
    throw error;
  }
}
