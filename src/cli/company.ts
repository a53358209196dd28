import type { Command } from 'commander';
import { readCompanyDetails } from '../audit/company-details.ts';
import { setCompanyDetails } from '../records/company/set-details.ts';
import type { CompanyDetails } from '../records/company/events.ts';
import { formatMoscow, isCalendarDate } from '../lib/clock.ts';
import { ok } from '../lib/result.ts';
import { UsageError, openCompanyForCli, openLogForCli } from './open.ts';
import { osUser } from './os-user.ts';

const today = () => formatMoscow(Date.now()).slice(0, 10);

/** The details on one line: `ООО «Ромашка», ИНН 7701…, КПП 7701…, адрес …, директор …, главный бухгалтер …`. */
const detailsLine = (d: CompanyDetails) =>
  [d.name, `ИНН ${d.inn}`, d.kpp && `КПП ${d.kpp}`, d.address && `адрес ${d.address}`, d.director && `директор ${d.director}`, d.accountant && `главный бухгалтер ${d.accountant}`]
    .filter(Boolean)
    .join(', ');

interface SetOptions {
  name?: string;
  inn?: string;
  kpp?: string;
  address?: string;
  director?: string;
  accountant?: string;
  from?: string;
  json?: boolean;
}

export function companyCommand(program: Command): void {
  const company = program.command('company').description("the company's own details, as the акт сверки names it: set them, show them");

  company
    .command('set')
    .description('record the company\'s details from a day on (an event in the log: who set them and when stays in the "company" record\'s history)')
    .requiredOption('--name <name>', 'the name, e.g. ООО «Ромашка»')
    .requiredOption('--inn <inn>', '10 digits (an organisation) or 12 (an individual entrepreneur)')
    .option('--kpp <kpp>', "9 characters; an organisation's, an individual entrepreneur has none")
    .option('--address <address>', 'the legal address')
    .option('--director <name>', 'who signs for the company, e.g. Иванов И. И.')
    .option('--accountant <name>', 'the chief accountant')
    .option('--from <date>', 'the first day they are in force, YYYY-MM-DD (default: today, Moscow time)')
    .option('--json', 'print the details set as one JSON object')
    .action(async (options: SetOptions) => {
      const decided = setCompanyDetails({
        from: options.from ?? today(),
        name: options.name,
        inn: options.inn,
        kpp: options.kpp ?? null,
        address: options.address ?? null,
        director: options.director ?? null,
        accountant: options.accountant ?? null,
      });
      if (!decided.ok) throw new UsageError(decided.errors.map((e) => `--${e.message}`).join('; '));
      const { details, event } = decided.value;
      const tb = await openCompanyForCli();
      try {
        const written = await tb.write(async () => ok(await tb.log.append([event], { source: 'command line', user: osUser() })));
        if (!written.ok) throw new UsageError(written.errors.map((e) => e.message).join('; '));
      } finally {
        await tb.close();
      }
      process.stdout.write(options.json ? `${JSON.stringify(details)}\n` : `company details from ${details.from}: ${detailsLine(details)}\n`);
    });

  company
    .command('show')
    .description('the company\'s details in force on a day')
    .option('--on <date>', 'the day, YYYY-MM-DD (default: today, Moscow time)')
    .option('--json', 'print one JSON object (null when none are set)')
    .action(async (options: { on?: string; json?: boolean }) => {
      const on = options.on ?? today();
      if (!isCalendarDate(on)) throw new UsageError(`--on must be a real date YYYY-MM-DD, got ${on}`);
      const log = await openLogForCli();
      const details = await readCompanyDetails(log, on).finally(() => log.close());
      if (options.json) process.stdout.write(`${JSON.stringify(details ?? null)}\n`);
      else process.stdout.write(details === undefined ? `no company details in force on ${on}: set them with tradebook company set\n` : `${detailsLine(details)} (from ${details.from})\n`);
    });
}
