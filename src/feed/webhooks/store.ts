import type { Company } from '../../company.ts';
import type { WebhooksTable } from '../../storage/schema.ts';

/** A webhook as its commands and its deliverer see it. */
export type Webhook = WebhooksTable;

/** Where a failed delivery leaves its hook: when it is tried again, or paused and why. */
export type Failure = { error: string; at: number } & ({ retryAt: number } | { pause: string });

const COLUMNS = 'id, url, types, secret, position, paused, last_error, failing_since, attempts, next_attempt_at, delivered_at, created_at, lease_owner, lease_until';

/**
 * The webhooks table. Every write runs as a unit of the company's writer (on PostgreSQL under the chain head's
 * lock, so the lease's check and its taking are one step for every server); reads see what is committed.
 */
export class Webhooks {
  constructor(private readonly tb: Company) {}

  private write<T>(work: () => Promise<T>): Promise<T> {
    return this.tb.writer.run(work);
  }

  private get writes() {
    return this.tb.engine.decideOn;
  }

  /** A new hook at `position` (its first delivery is of the changes after it); its id, the next after the highest. */
  add(hook: { url: string; types: string | null; secret: string; position: number; now: number }): Promise<number> {
    return this.write(async () => {
      const id = ((await this.writes.value<number | null>('SELECT max(id) FROM webhooks')) ?? 0) + 1;
      await this.writes.run('INSERT INTO webhooks (id, url, types, secret, position, created_at) VALUES (?, ?, ?, ?, ?, ?)', [id, hook.url, hook.types, hook.secret, hook.position, hook.now]);
      return id;
    });
  }

  list(): Promise<Webhook[]> {
    return this.tb.engine.readOn.objects<Webhook>(`SELECT ${COLUMNS} FROM webhooks ORDER BY id`);
  }

  async byId(id: number): Promise<Webhook | undefined> {
    return (await this.tb.engine.readOn.objects<Webhook>(`SELECT ${COLUMNS} FROM webhooks WHERE id = ?`, [id]))[0];
  }

  /** Pauses it, saying why; false when there is no such hook. */
  pause(id: number, why: string): Promise<boolean> {
    return this.changed(id, 'UPDATE webhooks SET paused = ? WHERE id = ?', [why, id]);
  }

  /** Delivers again from where it stopped, at once, its failures forgotten; false when there is no such hook. */
  resume(id: number): Promise<boolean> {
    return this.changed(id, 'UPDATE webhooks SET paused = NULL, failing_since = NULL, attempts = 0, next_attempt_at = 0 WHERE id = ?', [id]);
  }

  remove(id: number): Promise<boolean> {
    return this.changed(id, 'DELETE FROM webhooks WHERE id = ?', [id]);
  }

  /** Runs `statement` on hook `id`; false, and nothing run, when there is no such hook. */
  private changed(id: number, statement: string, params: unknown[]): Promise<boolean> {
    return this.write(async () => {
      if ((await this.writes.value('SELECT id FROM webhooks WHERE id = ?', [id])) === undefined) return false;
      await this.writes.run(statement, params);
      return true;
    });
  }

  /**
   * Takes or keeps the hook's lease for `owner` until `until`, unless another holds one that has not run out;
   * answers the hook as it stands when `owner` holds it, undefined when it does not (or the hook is gone or paused).
   */
  lease(id: number, owner: string, now: number, until: number): Promise<Webhook | undefined> {
    return this.write(async () => {
      await this.writes.run('UPDATE webhooks SET lease_owner = ?, lease_until = ? WHERE id = ? AND paused IS NULL AND (lease_owner IS NULL OR lease_owner = ? OR lease_until < ?)', [
        owner,
        until,
        id,
        owner,
        now,
      ]);
      const [hook] = await this.writes.objects<Webhook>(`SELECT ${COLUMNS} FROM webhooks WHERE id = ? AND lease_owner = ?`, [id, owner]);
      return hook;
    });
  }

  /** Gives the lease up (the server is stopping): another server takes the hook over at once. */
  release(id: number, owner: string): Promise<void> {
    return this.write(() => this.writes.run('UPDATE webhooks SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?', [id, owner]));
  }

  /** Moves the hook's position to `position`: its receiver acknowledged up to there. Only its lease holder does. */
  delivered(id: number, owner: string, position: number, now: number): Promise<void> {
    return this.write(() =>
      this.writes.run(
        'UPDATE webhooks SET position = ?, delivered_at = ?, last_error = NULL, failing_since = NULL, attempts = 0, next_attempt_at = 0 WHERE id = ? AND lease_owner = ? AND position < ?',
        [position, now, id, owner, position],
      ),
    );
  }

  /** Moves the hook's position past changes it does not want: nothing was delivered. */
  passed(id: number, owner: string, position: number): Promise<void> {
    return this.write(() => this.writes.run('UPDATE webhooks SET position = ? WHERE id = ? AND lease_owner = ? AND position < ?', [position, id, owner, position]));
  }

  /** Records a failed delivery: tried again at `retryAt`, or paused with its reason. Its position stays. */
  failed(id: number, owner: string, failure: Failure): Promise<void> {
    const paused = 'pause' in failure ? failure.pause : null;
    const retryAt = 'retryAt' in failure ? failure.retryAt : 0;
    return this.write(() =>
      this.writes.run(
        'UPDATE webhooks SET last_error = ?, failing_since = coalesce(failing_since, ?), attempts = attempts + 1, next_attempt_at = ?, paused = ? WHERE id = ? AND lease_owner = ?',
        [failure.error, failure.at, retryAt, paused, id, owner],
      ),
    );
  }
}
