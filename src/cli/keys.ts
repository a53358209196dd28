import type { Command } from 'commander';
import { parseMoment } from '../lib/clock.ts';
import type { ApiKeyInfo, KeyScope } from '../tokens/api-keys.ts';
import { UsageError, openKeysForCli, parseWholeNumber } from './open.ts';
import { columns } from './columns.ts';
import { TIME_FORMS, showStoredTime, showTime } from './times.ts';

/** Whether a key is still accepted: `revoked`, `expired` (its expiry is past), or `active`. */
type KeyState = 'active' | 'expired' | 'revoked';

function stateOf(k: ApiKeyInfo, now: number): KeyState {
  if (k.revoked !== null) return 'revoked';
  return k.expires !== null && Date.parse(k.expires) <= now ? 'expired' : 'active';
}

/** A key as the command line shows it: its state, its times in Moscow time with the offset. */
function shownKey(k: ApiKeyInfo, now: number): ApiKeyInfo & { state: KeyState } {
  return { ...k, state: stateOf(k, now), created: showStoredTime(k.created)!, expires: showStoredTime(k.expires), revoked: showStoredTime(k.revoked) };
}

export function keysCommand(program: Command): void {
  const keys = program.command('keys').description('create, list and revoke API keys');

  keys
    .command('create')
    .description('create a key; the key itself is printed once, alone on the last line')
    .option('--name <name>', 'a name to tell the key by', 'key')
    .option('--scope <scope>', 'api (reads and writes) or audit (reads, and the audit endpoints)', 'api')
    .option('--expires <time>', `expiry, ${TIME_FORMS}`)
    .option('--json', 'print one JSON object: id, name, scope, expires and the key')
    .action(async (options: { name: string; scope: string; expires?: string; json?: boolean }) => {
      if (options.scope !== 'api' && options.scope !== 'audit') throw new UsageError('--scope takes api or audit');
      const expiresAt = options.expires === undefined ? null : parseMoment(options.expires);
      if (expiresAt === undefined) throw new UsageError(`--expires takes ${TIME_FORMS}`);
      const { keys, close } = await openKeysForCli();
      const { id, key } = await keys.create({ name: options.name, scope: options.scope as KeyScope, expiresAt }).finally(close);
      // Still created: a script testing how expiry is refused needs exactly such a key.
      if (expiresAt !== null && expiresAt <= Date.now()) process.stderr.write(`tradebook: warning: key ${id} expires ${showTime(expiresAt)}, already past: it is refused from the start\n`);
      const expires = expiresAt === null ? null : showTime(expiresAt);
      process.stdout.write(
        options.json
          ? `${JSON.stringify({ id, name: options.name, scope: options.scope, expires, key })}\n`
          : `created key ${id} (${options.name}, scope ${options.scope}); it is shown only now:\n${key}\n`,
      );
    });

  keys
    .command('list')
    .description('list keys with their state (active, expired, revoked), never the keys themselves')
    .option('--json', 'print one JSON array')
    .action(async (options: { json?: boolean }) => {
      const { keys, close } = await openKeysForCli({ mustExist: true });
      const now = Date.now();
      const list = (await keys.list().finally(close)).map((k) => shownKey(k, now));
      if (options.json) {
        process.stdout.write(`${JSON.stringify(list)}\n`);
        return;
      }
      const header = ['ID', 'NAME', 'SCOPE', 'STATE', 'CREATED', 'EXPIRES', 'REVOKED'];
      process.stdout.write(columns([header, ...list.map((k) => [String(k.id), k.name, k.scope, k.state, k.created, k.expires ?? '-', k.revoked ?? '-'])]));
    });

  keys
    .command('revoke')
    .description('revoke a key; running servers refuse it within 1 s (TRADEBOOK_KEY_CACHE_MS)')
    .argument('<id>', 'the key id')
    .action(async (idText: string) => {
      const id = parseWholeNumber(idText, 'id');
      const { keys, close } = await openKeysForCli({ mustExist: true });
      const revoked = await keys.revoke(id).finally(close);
      if (!revoked) throw new UsageError(`no key ${id}`);
      process.stdout.write(`revoked key ${id}\n`);
    });
}
