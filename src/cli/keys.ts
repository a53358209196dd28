import type { Command } from 'commander';
import { parseMoscow } from '../lib/clock.ts';
import type { KeyScope } from '../tokens/api-keys.ts';
import { UsageError, openForCli, parseWholeNumber } from './open.ts';

export function keysCommand(program: Command): void {
  const keys = program.command('keys').description('create, list and revoke API keys');

  keys
    .command('create')
    .description('create a key; the key itself is printed once, alone on the last line')
    .option('--name <name>', 'a name to tell the key by', 'key')
    .option('--scope <scope>', 'api (the trade API) or audit (also the audit endpoints)', 'api')
    .option('--expires <time>', 'expiry, "YYYY-MM-DD HH:MM:SS" Moscow time')
    .action(async (options: { name: string; scope: string; expires?: string }) => {
      if (options.scope !== 'api' && options.scope !== 'audit') throw new UsageError('--scope takes api or audit');
      const expiresAt = options.expires === undefined ? null : parseMoscow(options.expires);
      if (expiresAt === undefined) throw new UsageError('--expires takes "YYYY-MM-DD HH:MM:SS" (Moscow time)');
      const tb = await openForCli();
      const { id, key } = await tb.keys.create({ name: options.name, scope: options.scope as KeyScope, expiresAt });
      tb.close();
      process.stdout.write(`created key ${id} (${options.name}, scope ${options.scope}); it is shown only now:\n${key}\n`);
    });

  keys
    .command('list')
    .description('list keys (never the keys themselves)')
    .option('--json', 'print one JSON array')
    .action(async (options: { json?: boolean }) => {
      const tb = await openForCli();
      const list = await tb.keys.list();
      tb.close();
      if (options.json) {
        process.stdout.write(`${JSON.stringify(list)}\n`);
        return;
      }
      for (const k of list) {
        process.stdout.write(`${k.id}\t${k.name}\t${k.scope}\tcreated ${k.created}\texpires ${k.expires ?? '-'}\trevoked ${k.revoked ?? '-'}\n`);
      }
    });

  keys
    .command('revoke')
    .description('revoke a key; it is refused from the next request on')
    .argument('<id>', 'the key id')
    .action(async (idText: string) => {
      const id = parseWholeNumber(idText, 'id');
      const tb = await openForCli();
      const revoked = await tb.keys.revoke(id);
      tb.close();
      if (!revoked) throw new UsageError(`no key ${id}`);
      process.stdout.write(`revoked key ${id}\n`);
    });
}
