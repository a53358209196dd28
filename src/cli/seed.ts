import type { Command } from 'commander';
import { type ImportRecord, importRecords } from '../use-cases/import.ts';
import { DEMO_COMPANY_DETAILS, type DemoSizes, demoCompany, demoLineCount } from '../seed/demo-company.ts';
import { setCompanyDetails } from '../records/company/set-details.ts';
import { ok } from '../lib/result.ts';
import { EXIT } from './exit.ts';
import { UsageError, cliDatabase, openCompanyForCli, parseWholeNumber } from './open.ts';
import { shownDatabase } from '../storage/database.ts';
import { progressReporter } from './progress.ts';

const DEFAULT_SIZES: DemoSizes = { products: 200, contractors: 50, documents: 500 };
const SEED = 20_261_122;
/** The seed is the only writer of a new database: bigger transactions than an import's spare commits. */
const SEED_RECORDS_PER_GROUP = 5000;

export function seedCommand(program: Command): void {
  program
    .command('seed')
    .description('fill an empty database with a deterministic demo company, through the same commands as import')
    .option('--demo', 'the demo company (the only kind there is)')
    .option('--products <n>', 'products', String(DEFAULT_SIZES.products))
    .option('--contractors <n>', 'contractors', String(DEFAULT_SIZES.contractors))
    .option('--documents <n>', 'documents', String(DEFAULT_SIZES.documents))
    .option('--json', 'print the report as one JSON object')
    .action(async (options: { demo?: boolean; products: string; contractors: string; documents: string; json?: boolean }) => {
      if (!options.demo) throw new UsageError('seed needs --demo');
      const sizes: DemoSizes = {
        products: parseWholeNumber(options.products, '--products'),
        contractors: parseWholeNumber(options.contractors, '--contractors'),
        documents: parseWholeNumber(options.documents, '--documents'),
      };
      if (sizes.documents > 0 && (sizes.products === 0 || sizes.contractors === 0)) throw new UsageError('documents need --products and --contractors of at least 1');
      const tb = await openCompanyForCli();
      try {
        const events = await tb.audit.lastSeq();
        if (events > 0) throw new UsageError(`the database ${shownDatabase(cliDatabase())} is not empty (${events} events); seed fills only an empty one`);
        const details = setCompanyDetails(DEMO_COMPANY_DETAILS);
        if (!details.ok) throw new Error(`the demo company's details: ${details.errors.map((e) => e.message).join('; ')}`);
        await tb.write(async () => ok(await tb.log.append([details.value.event], { source: 'seed' })));
        const total = demoLineCount(sizes);
        const progress = progressReporter('seed', 'records');
        const started = Date.now();
        let done = 0;
        function* records(): Generator<ImportRecord> {
          for (const value of demoCompany(SEED, sizes)) {
            yield { line: ++done, value };
            if (done % 1000 === 0 || done === total) progress.update({ done, total });
          }
        }
        const report = await importRecords(
          tb,
          records(),
          ({ line, errors }) => {
            for (const e of errors) process.stderr.write(`record ${line}: ${e.code}${e.field ? ` (${e.field})` : ''}: ${e.message}\n`);
          },
          { linesPerGroup: SEED_RECORDS_PER_GROUP },
        );
        progress.stop();
        const seconds = Number(((Date.now() - started) / 1000).toFixed(1));
        process.stdout.write(options.json ? `${JSON.stringify({ ...report, seconds })}\n` : `seeded ${report.applied} records (${report.events} events) in ${seconds} s\n`);
        if (report.failed > 0) process.exitCode = EXIT.problemsFound;
      } finally {
        await tb.close();
      }
    });
}
