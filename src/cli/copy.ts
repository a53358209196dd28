import type { Command } from 'commander';
import { type CopySource, type CopyTarget, SourceIsPointInTimeError, TargetNotEmptyError } from '../storage/copy.ts';
import { type DatabaseSetting, databaseSetting, sameDatabase, settingProblem, shownDatabase as shown } from '../storage/database.ts';
import { openCopyDestination, openStored } from '../storage/open-engine.ts';
import { Company } from '../company.ts';
import { copyCompany } from '../use-cases/copy-company.ts';
import { EXIT } from './exit.ts';
import { UsageError, cliDatabase } from './open.ts';
import { progressReporter } from './progress.ts';

export function copyCommand(program: Command): void {
  program
    .command('copy')
    .description(
      "copy the company's log (hashes as they are) and keys from TRADEBOOK_DB into another, empty database of either engine (a SQLite file into PostgreSQL, PostgreSQL back into a SQLite file), " +
        "then check the copy's hash chain there; a SQLite copy then gets its read tables built, ready to serve",
    )
    .requiredOption('--to <database>', 'a SQLite file (new, or holding no event and no key) or a PostgreSQL database (postgres://user@host:5432/db) holding no event and no key')
    .option('--json', 'print the report as one JSON object')
    .action(async (options: { to: string; json?: boolean }) => {
      const from = copyEnd(cliDatabase(), 'TRADEBOOK_DB');
      const to = copyEnd(databaseSetting(options.to), '--to');
      if (sameDatabase(from, to)) throw new UsageError(`TRADEBOOK_DB and --to are the same database, ${shown(from)}: a copy goes into another one`);
      const started = Date.now();
      const source = await openSource(from);
      const target = openTarget(to);
      // A bar a phase, each started when its phase begins: its rate and ETA are its own.
      let phase = 'copy';
      let progress = progressReporter(phase, 'events');
      let report;
      try {
        report = await inEnvironment(`cannot copy to ${shown(to)}`, () =>
          copyCompany(source.copy, target.copy, (now, done, total) => {
            if (now !== phase) {
              progress.stop();
              phase = now;
              progress = progressReporter(phase, 'events');
            }
            progress.update({ done, total });
          }),
        );
      } finally {
        progress.stop();
        try {
          await target.close();
        } finally {
          await source.close();
        }
      }
      const { events, keys, head, problems } = report;
      const readTables = await target.buildReadTables(problems.length === 0);
      const seconds = Number(((Date.now() - started) / 1000).toFixed(1));
      for (const problem of problems) process.stderr.write(`copy: ${problem}\n`);
      if (options.json) process.stdout.write(`${JSON.stringify({ from: shown(from), to: shown(to), events, keys, seq: head.seq, hash: head.hash, seconds, ok: problems.length === 0 })}\n`);
      else {
        const outcome = problems.length === 0 ? 'its hash chain recomputes there and ends at the same hash' : 'its hash chain does NOT check out there (above)';
        process.stdout.write(`copied ${events} events and ${keys} keys from ${shown(from)} to ${shown(to)} in ${seconds} s; last seq ${head.seq}, hash ${head.hash}; ${outcome}\n${readTables}\n`);
      }
      if (problems.length > 0) process.exitCode = EXIT.problemsFound;
    });
}


/** `setting` when a copy can go from or to it; `name` (TRADEBOOK_DB, --to) says which end is refused. */
function copyEnd(setting: DatabaseSetting, name: string): DatabaseSetting {
  const problem = settingProblem(setting);
  if (problem) throw new UsageError(`${name} ${problem}`);
  return setting;
}

/** The database TRADEBOOK_DB names as a copy's source: one snapshot of it, held until `close`. */
export async function openSource(setting: DatabaseSetting): Promise<{ copy: CopySource; close(): Promise<void> }> {
  // A missing file, one that is no database or cannot be opened: one line from the command line's own handling.
  const stored = openStored(setting);
  try {
    return { copy: await inEnvironment(`cannot read ${shown(setting)}`, () => stored.copySource()), close: () => stored.close() };
  } catch (error) {
    await stored.close();
    throw error;
  }
}

/**
 * The database --to names as a copy's target (nothing is opened or connected before the copy loads it), and the
 * copy's last step: its read tables built where the engine has them, when the copy checks out (one that does not
 * is not to be served), answering the line that tells how they are.
 */
function openTarget(setting: DatabaseSetting): { copy: CopyTarget; close(): Promise<void>; buildReadTables(checksOut: boolean): Promise<string> } {
  const destination = openCopyDestination(setting);
  const name = shown(setting);
  return {
    copy: destination.copy,
    close: () => destination.close(),
    buildReadTables: async (checksOut) => {
      if (!checksOut) return 'its read tables are not built: the copy does not check out';
      // Opened as the server opens it, the database gets its read tables built from the log. That shows no bar and
      // takes longer than the copy: a line says what is under way.
      process.stderr.write(`build: the read tables of ${name}\n`);
      await inEnvironment(`${name} holds the whole copy, but its read tables could not be built (any later open of it builds them)`, async () =>
        (await Company.open(setting)).close(),
      );
      return 'its read tables are built: tradebook can serve it';
    },
  };
}

/**
 * Runs `work`, telling the environment's refusals in one line after `what`: a target that is not empty, a server
 * that cannot be reached, a role or database that does not exist, a SQLite file without a tradebook's tables.
 */
async function inEnvironment<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof TargetNotEmptyError || error instanceof SourceIsPointInTimeError || isEnvironmental(error)) throw new UsageError(`${what}: ${(error as Error).message}`);
    throw error;
  }
}

/**
 * An error of the system or of a database (its code is ECONNREFUSED, a SQLSTATE, SQLITE_ERROR…), not a bug of
 * ours (Node's own `ERR_` codes: a wrong argument).
 */
function isEnvironmental(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return error instanceof Error && typeof code === 'string' && !code.startsWith('ERR_');
}
