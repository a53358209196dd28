import type { Command } from 'commander';
import { SourceIsPointInTimeError, TargetNotEmptyError } from '../storage/copy.ts';
import { databaseSetting, shownUrl } from '../storage/database.ts';
import { openPostgres } from '../storage/postgres/connection.ts';
import { postgresCopyTarget } from '../storage/postgres/copy-target.ts';
import { sqliteCopySource } from '../storage/sqlite/copy-source.ts';
import { copyCompany } from '../use-cases/copy-company.ts';
import { EXIT } from './exit.ts';
import { UsageError, databasePath, openExistingReadonly } from './open.ts';
import { progressReporter } from './progress.ts';

export function copyCommand(program: Command): void {
  program
    .command('copy')
    .description("copy the company's log (hashes as they are) and keys from TRADEBOOK_DB, a SQLite file, into an empty PostgreSQL database, then check the copy's hash chain")
    .requiredOption('--to <url>', 'the PostgreSQL database (postgres://user@host:5432/db); it must hold no event and no key')
    .option('--json', 'print the report as one JSON object')
    .action(async (options: { to: string; json?: boolean }) => {
      const from = databasePath();
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(from)) throw new UsageError(`copy reads a SQLite file; TRADEBOOK_DB is ${shownUrl(from)}`);
      if (databaseSetting(options.to).engine !== 'postgres' || !URL.canParse(options.to)) throw new UsageError(`--to must be a postgres:// or postgresql:// URL, got ${shownUrl(options.to)}`);
      const to = shownUrl(options.to);
      // A missing file, one that is no database or cannot be opened: one line from the command line's own handling.
      const db = openExistingReadonly();
      // A bar a phase, each started when its phase begins: its rate and ETA are its own.
      let phase = 'copy';
      let progress = progressReporter(phase, 'events');
      const started = Date.now();
      let report;
      try {
        const source = await inEnvironment(`cannot read ${from}`, () => sqliteCopySource(db));
        const target = await inEnvironment(`cannot copy to ${to}`, async () => openPostgres(options.to, { poolSize: 1 }));
        try {
          report = await inEnvironment(`cannot copy to ${to}`, () =>
            copyCompany(source, postgresCopyTarget(target), (now, done, total) => {
              if (now !== phase) {
                progress.stop();
                phase = now;
                progress = progressReporter(phase, 'events');
              }
              progress.update({ done, total });
            }),
          );
        } finally {
          await target.close();
        }
      } finally {
        progress.stop();
        db.close();
      }
      const seconds = Number(((Date.now() - started) / 1000).toFixed(1));
      const { events, keys, head, problems } = report;
      for (const problem of problems) process.stderr.write(`copy: ${problem}\n`);
      if (options.json) process.stdout.write(`${JSON.stringify({ from, to, events, keys, seq: head.seq, hash: head.hash, seconds, ok: problems.length === 0 })}\n`);
      else {
        const outcome = problems.length === 0 ? 'its hash chain recomputes there and ends at the same hash' : 'its hash chain does NOT check out there (above)';
        process.stdout.write(
          `copied ${events} events and ${keys} keys from ${from} to ${to} in ${seconds} s; last seq ${head.seq}, hash ${head.hash}; ${outcome}\n` +
            'the read tables are not built on PostgreSQL yet: tradebook cannot serve this database until they are\n',
        );
      }
      if (problems.length > 0) process.exitCode = EXIT.problemsFound;
    });
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
