import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout } from 'node:timers/promises';
import type { Company } from '../../company.ts';
import type { Clock } from '../../lib/clock.ts';
import { type ChangeRow, changeJson, visibleTypes } from '../change.ts';
import { changesAfter, eventTypesOf } from '../pages.ts';
import { OUTBOUND_DEFAULTS, type OutboundSettings, post } from './outbound.ts';
import { signedHeaders } from './signature.ts';
import type { Webhook, Webhooks } from './store.ts';

export interface DelivererSettings extends OutboundSettings {
  /** How long a server's hold on a hook lasts unless renewed (ms): longer than a delivery may take. */
  leaseMs: number;
  /** How often hooks are looked at without a commit to wake the deliverer (retries, leases run out elsewhere). */
  tickMs: number;
  /** The first retry's delay; each next one doubles, up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
  /** A hook failing this long is paused. */
  pauseAfterMs: number;
}

export const DELIVERER_DEFAULTS: DelivererSettings = {
  ...OUTBOUND_DEFAULTS,
  leaseMs: 15_000,
  tickMs: 1000,
  backoffMs: 1000,
  maxBackoffMs: 3_600_000,
  pauseAfterMs: 24 * 3_600_000,
};

/** Changes a delivery carries at most. */
export const BATCH = 100;

/** The delay before retry number `attempt` (from 1): 1 s, 2 s, 4 s… up to the cap. */
export function backoff(attempt: number, settings: Pick<DelivererSettings, 'backoffMs' | 'maxBackoffMs'>): number {
  return Math.min(settings.maxBackoffMs, settings.backoffMs * 2 ** Math.min(attempt - 1, 40));
}

/**
 * A server's deliveries of the log's changes to the webhooks: each hook's changes after its position, in seq
 * order, in batches of up to 100, signed (`signature.ts`), POSTed through `outbound.ts`. A batch is sent again,
 * later each time, until its receiver answers 2xx; only then does the hook's position move (at least once, in
 * order). A hook failing for a day is paused with its last error. One server at a time delivers a hook: the one
 * holding its lease, a row in the database that runs out unless renewed, so another server takes over a hook of
 * one that died. Woken by the server's waker when the log moves.
 */
export class HookDeliverer {
  /** This server among every server on the database. */
  readonly owner = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;

  constructor(
    private readonly tb: Company,
    private readonly hooks: Webhooks,
    private readonly settings: DelivererSettings = DELIVERER_DEFAULTS,
    private readonly clock: Clock = tb.clock,
  ) {}

  /** Delivers until `stop`. */
  start(): void {
    this.running = this.loop();
  }

  /** Lets the deliveries under way finish, then gives up this server's leases, so another takes over at once. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
    await Promise.allSettled(this.inFlight.values());
    for (const hook of await this.hooks.list().catch(() => [])) if (hook.lease_owner === this.owner) await this.hooks.release(hook.id, this.owner).catch(() => {});
  }

  /** One look at every hook: what is due is delivered; settles when those deliveries have (tests drive it so). */
  async deliverDue(): Promise<void> {
    await this.startDue();
    await Promise.allSettled(this.inFlight.values());
  }

  /**
   * Starts the delivery of every hook that is due and not under way, and renews the leases of those under way;
   * answers how many hooks are active and the log's end it looked at.
   */
  private async startDue(): Promise<{ active: number; end: number }> {
    const [hooks, end] = await Promise.all([this.hooks.list(), this.tb.audit.lastSeq()]);
    const now = this.clock();
    const active = hooks.filter((hook) => hook.paused === null);
    for (const hook of active) {
      if (this.inFlight.has(hook.id)) {
        // Held while its delivery runs: the lease outlasts a delivery, and is renewed every look meanwhile.
        await this.hooks.lease(hook.id, this.owner, now, now + this.settings.leaseMs).catch(() => {});
        continue;
      }
      // Nothing to send, or not yet: no lease is taken (a write), and one held lapses.
      if (hook.position >= end || hook.next_attempt_at > now) continue;
      // A delivery the database failed (its lease or position not written) is tried again at a later look.
      const delivery = this.deliver(hook.id)
        .catch(() => {})
        .finally(() => this.inFlight.delete(hook.id));
      this.inFlight.set(hook.id, delivery);
    }
    return { active: active.length, end };
  }

  private async loop(): Promise<void> {
    const { waker } = this.tb;
    // The waker stops first when the server shuts down: nothing wakes the loop any more.
    while (!this.stopping.signal.aborted && !waker.closed) {
      const mark = waker.mark;
      let wakeAfter: number | undefined;
      try {
        // Not awaited beyond the look: a slow receiver holds up its own hook only.
        const { active, end } = await this.startDue();
        if (active > 0) wakeAfter = end;
      } catch {
        // The database out of reach: looked at again next tick.
      }
      // Without active hooks it does not wait on the waker, whose every commit would then read the log's end for
      // nobody: a hook added meanwhile is found within a tick.
      if (wakeAfter === undefined) await setTimeout(this.settings.tickMs, undefined, { signal: this.stopping.signal }).catch(() => {});
      else await waker.wait(wakeAfter, mark, this.settings.tickMs, this.stopping.signal);
    }
  }

  /** The hook's batches, one after another while they are acknowledged and it is due; a failure ends the run. */
  private async deliver(id: number): Promise<void> {
    while (!this.stopping.signal.aborted) {
      const now = this.clock();
      const hook = await this.hooks.lease(id, this.owner, now, now + this.settings.leaseMs);
      if (hook === undefined || hook.next_attempt_at > now) return;
      const found = hook.types === null ? undefined : eventTypesOf(hook.types.split(','));
      const page = await changesAfter(this.tb.engine.readOn, hook.position, BATCH, visibleTypes(found && 'types' in found ? found.types : undefined, 'api'));
      if (page.rows.length === 0) {
        // Nothing for it (a filter passed over what there was): its position moves on without a delivery.
        if (page.next > hook.position) await this.hooks.passed(id, this.owner, page.next);
        if (page.next === hook.position || page.next === (await this.tb.audit.lastSeq())) return;
        continue;
      }
      if (!(await this.send(hook, page.rows, page.next))) return;
    }
  }

  /** One batch to the hook's receiver; whether it was acknowledged (the hook moved on) or not (its failure recorded). */
  private async send(hook: Webhook, rows: ChangeRow[], next: number): Promise<boolean> {
    const data = rows.map((row) => changeJson(row, 'api'));
    const body = `{"meta":{"hook":${hook.id},"after":${hook.position},"next":${next},"count":${data.length}},"data":[${data.join(',')}]}`;
    // The same batch has the same id on every attempt: a receiver that got it already tells it by its id.
    const messageId = `msg_${hook.id}_${rows[0].seq}_${rows.at(-1)!.seq}`;
    const answer = await post(hook.url, body, signedHeaders(hook.secret, messageId, new Date(this.clock()), body), this.settings);
    const now = this.clock();
    if ('status' in answer && answer.status >= 200 && answer.status < 300) {
      await this.hooks.delivered(hook.id, this.owner, next, now);
      return true;
    }
    const error = 'status' in answer ? `the receiver answered ${answer.status}` : answer.error;
    const failingSince = hook.failing_since ?? now;
    const failure =
      now - failingSince >= this.settings.pauseAfterMs
        ? { pause: `failing for ${Math.round((now - failingSince) / 3_600_000)} h: ${error}` }
        : { retryAt: now + backoff(hook.attempts + 1, this.settings) };
    await this.hooks.failed(hook.id, this.owner, { error, at: now, ...failure });
    return false;
  }
}
