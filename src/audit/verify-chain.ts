import { GENESIS_HASH, chainHash } from '../events/hash.ts';
import type { EventRow } from '../events/store.ts';
import type { ChainCheck } from '../storage/read-tables.ts';


/**
 * Walks the log in seq order recomputing every hash from the previous one. The first event whose stored hash
 * differs (its data, meta or another column was edited, or an event before it was removed or inserted) or
 * whose seq is not the next one (an event was deleted) is reported; the walk stops there. The rows come from
 * any engine's log, read in seq order from the first event.
 */
export async function verifyChain(rows: Iterable<EventRow> | AsyncIterable<EventRow>): Promise<ChainCheck> {
  let previous = GENESIS_HASH;
  let expectedSeq = 1;
  let events = 0;
  for await (const row of rows) {
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

/** Why an event does not follow from the one before it: that one is missing, or the event does not give its stored hash. */
export type LinkProblem = { kind: 'previousMissing'; seq: number } | { kind: 'mismatch'; seq: number };

/** A link's problem in English. */
export const linkProblemText = (reason: LinkProblem) =>
  reason.kind === 'previousMissing' ? `event ${reason.seq - 1}, the one before it, is missing` : `event ${reason.seq} does not match its hash`;

/** Whether one event hashes to its stored hash from the stored hash of the event before it (`reason` when not, and `problem` in English). */
export type LinkCheck = { seq: number; ok: true } | { seq: number; ok: false; reason: LinkProblem; problem: string };

const broken = (reason: LinkProblem): LinkCheck => ({ seq: reason.seq, ok: false, reason, problem: linkProblemText(reason) });

/**
 * Checks each event given against the one before it (seq − 1): the previous stored hash (read with `hashAt`
 * unless that event is among those given) and the event's own columns must give its stored hash. This checks
 * the events shown, not the whole chain: the event before the first one is taken as stored.
 */
export async function checkLinks(rows: readonly EventRow[], hashAt: (seq: number) => string | undefined | Promise<string | undefined>): Promise<LinkCheck[]> {
  const given = new Map(rows.map((row) => [row.seq, row.hash]));
  const checks: LinkCheck[] = [];
  for (const row of rows) {
    const previous = row.seq === 1 ? GENESIS_HASH : (given.get(row.seq - 1) ?? (await hashAt(row.seq - 1)));
    if (previous === undefined) checks.push(broken({ kind: 'previousMissing', seq: row.seq }));
    else if (chainHash(previous, row) !== row.hash) checks.push(broken({ kind: 'mismatch', seq: row.seq }));
    else checks.push({ seq: row.seq, ok: true });
  }
  return checks;
}
