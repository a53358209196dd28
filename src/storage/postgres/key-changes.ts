import type { KeyChangeListener, KeyChangeSource } from '../key-changes.ts';
import type { PostgresListener } from './listener.ts';

/** The channel a key's change is announced on, its id as the payload, in the transaction that makes it. */
export const KEY_CHANGES_CHANNEL = 'tradebook_keys';

/**
 * Key changes as PostgreSQL announces them, heard on the server's listening connection (`PostgresListener`): each
 * notification makes the cache forget that key; while the connection is lost, the cache is told it may miss changes.
 */
export class PostgresKeyChanges implements KeyChangeSource {
  constructor(private readonly listener: PostgresListener) {}

  start(cache: KeyChangeListener): void {
    this.listener.add(KEY_CHANGES_CHANNEL, {
      what: 'key changes',
      notified: (payload) => cache.forget(Number(payload)),
      listening: () => cache.listening(),
      lost: (why) => cache.lost(why),
    });
  }

  stop(): Promise<void> {
    return this.listener.remove(KEY_CHANGES_CHANNEL);
  }
}
