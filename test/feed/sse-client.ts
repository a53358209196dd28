import { EventSource } from 'eventsource';
import { EVENT_TYPES } from '../../src/feed/change.ts';

/**
 * A follower of `/api/changes` as an integrator writes one: the `eventsource` package (which reconnects by itself
 * and sends `Last-Event-ID`), the key in the Authorization header, a listener for every event type; the seqs
 * received, in order, with duplicates kept (a consumer drops them).
 */
export function follow(url: string, key: string, headers: Record<string, string> = {}) {
  const seqs: number[] = [];
  const changes: { seq: number; type: string; data: unknown }[] = [];
  let opened = 0;
  let errors = 0;
  const source = new EventSource(url, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, ...headers, Authorization: `Bearer ${key}` } }),
  });
  for (const type of EVENT_TYPES) {
    source.addEventListener(type, (event) => {
      const change = JSON.parse(event.data);
      seqs.push(Number(event.lastEventId));
      changes.push(change);
    });
  }
  source.addEventListener('open', () => opened++);
  source.addEventListener('error', () => errors++);
  return {
    source,
    seqs,
    changes,
    get opened() {
      return opened;
    },
    get errors() {
      return errors;
    },
    /** The seqs in order once duplicates (received again after a reconnect) are dropped. */
    distinct: () => {
      let last = 0;
      return seqs.filter((seq) => seq > last && (last = seq) > 0);
    },
    close: () => source.close(),
  };
}
