import type { Command } from 'commander';
import type { Company } from '../company.ts';
import { eventTypesOf } from '../feed/pages.ts';
import { refusedUrl } from '../feed/webhooks/outbound.ts';
import { newSecret } from '../feed/webhooks/signature.ts';
import { type Webhook, Webhooks } from '../feed/webhooks/store.ts';
import { UsageError, openCompanyForCli, parseWholeNumber } from './open.ts';
import { showTime } from './times.ts';

/** A hook as the command line shows it: never its secret; times in Moscow time with the offset. */
function shownHook(hook: Webhook, logEnd: number) {
  const time = (ms: number | null) => (ms === null || ms === 0 ? null : showTime(ms));
  return {
    id: hook.id,
    url: hook.url,
    types: hook.types,
    state: hook.paused === null ? 'active' : 'paused',
    paused: hook.paused,
    position: hook.position,
    behind: Math.max(0, logEnd - hook.position),
    deliveredAt: time(hook.delivered_at),
    lastError: hook.last_error,
    failingSince: time(hook.failing_since),
    attempts: hook.attempts,
    nextAttemptAt: hook.paused === null ? time(hook.next_attempt_at) : null,
    deliveredBy: hook.lease_owner,
    created: showTime(hook.created_at),
  };
}

/** Runs `work` on the webhooks of the database TRADEBOOK_DB names, and closes it. */
async function withHooks<T>(work: (hooks: Webhooks, tb: Company) => Promise<T>): Promise<T> {
  const tb = await openCompanyForCli();
  try {
    return await work(new Webhooks(tb), tb);
  } finally {
    await tb.close();
  }
}

export function hooksCommand(program: Command): void {
  const hooks = program.command('hooks').description("webhooks: the log's changes POSTed, signed, to a URL (see Following changes in the README)");

  hooks
    .command('add')
    .description("add a webhook; its secret (whsec_…) is printed once, alone on the last line")
    .argument('<url>', 'http or https; servers refuse loopback and private addresses unless TRADEBOOK_WEBHOOK_PRIVATE_ADDRESSES=on')
    .option('--types <names>', 'only these event types and record kinds, comma-separated (e.g. product,contractor)')
    .option('--after <seq>', "deliver the changes after this seq (default: the log's end: changes from now on)")
    .option('--json', 'print one JSON object: id, url, types, position and the secret')
    .action(async (url: string, options: { types?: string; after?: string; json?: boolean }) => {
      const refused = refusedUrl(url);
      if (refused !== undefined) throw new UsageError(refused);
      const names = options.types?.split(',').map((name) => name.trim());
      const found = names === undefined ? undefined : eventTypesOf(names);
      if (found !== undefined && 'unknown' in found) throw new UsageError(`--types: ${JSON.stringify(found.unknown)} is neither an event type nor a record kind`);
      const after = options.after === undefined ? undefined : parseWholeNumber(options.after, '--after');
      const types = names?.join(',') ?? null;
      const secret = newSecret();
      const { id, position } = await withHooks(async (store, tb) => {
        const position = after ?? (await tb.audit.lastSeq());
        return { id: await store.add({ url, types, secret, position, now: Date.now() }), position };
      });
      process.stdout.write(
        options.json
          ? `${JSON.stringify({ id, url, types, position, secret })}\n`
          : `added hook ${id}: ${url}, the changes after seq ${position}${types === null ? '' : ` of ${types}`}; its secret is shown only now:\n${secret}\n`,
      );
    });

  hooks
    .command('list')
    .description('list webhooks (never their secrets)')
    .option('--json', 'print one JSON array')
    .action(async (options: { json?: boolean }) => {
      const list = await withHooks(async (store, tb) => {
        const end = await tb.audit.lastSeq();
        return (await store.list()).map((hook) => shownHook(hook, end));
      });
      if (options.json) return void process.stdout.write(`${JSON.stringify(list)}\n`);
      for (const h of list) process.stdout.write(`${h.id}\t${h.state}\t${h.url}\t${h.types ?? 'every change'}\tat seq ${h.position}, ${h.behind} behind\n`);
    });

  hooks
    .command('status')
    .description('one webhook: where it is, its last delivery, its failures, why it is paused')
    .argument('<id>', 'the hook id')
    .option('--json', 'print one JSON object')
    .action(async (idText: string, options: { json?: boolean }) => {
      const id = parseWholeNumber(idText, 'id');
      const shown = await withHooks(async (store, tb) => {
        const hook = await store.byId(id);
        return hook && shownHook(hook, await tb.audit.lastSeq());
      });
      if (shown === undefined) throw new UsageError(`no hook ${id}`);
      if (options.json) return void process.stdout.write(`${JSON.stringify(shown)}\n`);
      for (const [name, value] of Object.entries(shown)) process.stdout.write(`${name}: ${value ?? '-'}\n`);
    });

  const change = (name: string, description: string, act: (store: Webhooks, id: number) => Promise<boolean>, done: string) =>
    hooks
      .command(name)
      .description(description)
      .argument('<id>', 'the hook id')
      .action(async (idText: string) => {
        const id = parseWholeNumber(idText, 'id');
        if (!(await withHooks((store) => act(store, id)))) throw new UsageError(`no hook ${id}`);
        process.stdout.write(`${done} hook ${id}\n`);
      });
  change('pause', 'stop delivering to a webhook (its position stays)', (store, id) => store.pause(id, 'paused by hand'), 'paused');
  change('resume', 'deliver again from where it stopped, at once, its failures forgotten', (store, id) => store.resume(id), 'resumed');
  change('remove', 'remove a webhook', (store, id) => store.remove(id), 'removed');
}
