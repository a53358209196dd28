import { Command, CommanderError } from 'commander';
import { storageFaultOf } from '../storage/sqlite/storage-fault.ts';
import { anchorCommands } from './anchor.ts';
import { eventsCommand } from './events.ts';
import { historyCommand } from './history.ts';
import { importCommand } from './import.ts';
import { keysCommand } from './keys.ts';
import { UsageError } from './open.ts';
import { rebuildCommand } from './rebuild.ts';
import { verifyCommand } from './verify.ts';
import { seedCommand } from './seed.ts';

export async function main(argv: string[]): Promise<void> {
  const program = new Command('tradebook').description('tradebook: the event-sourced trade-accounting service').exitOverride();
  keysCommand(program);
  importCommand(program);
  eventsCommand(program);
  historyCommand(program);
  rebuildCommand(program);
  verifyCommand(program);
  seedCommand(program);
  anchorCommands(program);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode;
      return;
    }
    // A usage problem or a storage fault (disk full, read-only) is one line, not a stack trace.
    const known = error instanceof UsageError ? error : storageFaultOf(error);
    if (known) {
      process.stderr.write(`tradebook: ${known.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
}
