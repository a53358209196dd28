import type { Sqlite } from '../storage/sqlite/open.ts';
import { GENESIS_HASH, chainHash } from '../events/hash.ts';
import { readEvents } from '../events/store.ts';

export type ChainCheck =
  | { ok: true; events: number }
  | { ok: false; events: number; seq: number; stream: string; problem: string };

/**
 * Walks the log in seq order recomputing every hash from the previous one. The first event whose stored hash
 * differs (its data, meta or another column was edited, or an event before it was removed or inserted) or
 * whose seq is not the next one (an event was deleted) is reported; the walk stops there.
 */
export function verifyChain(db: Sqlite): ChainCheck {
  let previous = GENESIS_HASH;
  let expectedSeq = 1;
  let events = 0;
  for (const row of readEvents(db)) {
    if (row.seq !== expectedSeq) {
      return { ok: false, events, seq: expectedSeq, stream: row.stream, problem: `event ${expectedSeq} is missing (the next one is ${row.seq} of ${row.stream})` };
    }
    const hash = chainHash(previous, row);
    if (hash !== row.hash) return { ok: false, events, seq: row.seq, stream: row.stream, problem: `event ${row.seq} of ${row.stream} does not match its hash` };
    previous = hash;
    expectedSeq++;
    events++;
  }
  return { ok: true, events };
}
