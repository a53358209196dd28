import { verifyChain } from '../audit/verify-chain.ts';
import { GENESIS_HASH } from '../events/hash.ts';
import type { EventRow, LogHead } from '../events/rows.ts';
import { type CopySource, type CopyTarget, SourceIsPointInTimeError } from '../storage/copy.ts';

export interface CopyReport {
  events: number;
  keys: number;
  /** The source's last event, as copied. */
  head: LogHead;
  /** Empty when the target's chain recomputes from its own rows and ends where the source's does. */
  problems: string[];
}

/** How far a long copy is, for a progress bar: rows copied, then rows checked on the target. */
export type CopyProgress = (phase: 'copy' | 'check', done: number, total: number) => void;

/** Reports progress about once every this many rows. */
const PROGRESS_EVERY = 1000;

/**
 * Copies a company's log and keys from `source` into the empty `target`, rows as stored (seq, hashes, times: the
 * copy is no append), then walks the target's chain as `verify` does and holds its end to the source's.
 */
export async function copyCompany(source: CopySource, target: CopyTarget, progress: CopyProgress = () => {}): Promise<CopyReport> {
  if (source.pointInTime !== undefined) throw new SourceIsPointInTimeError(source.pointInTime);
  let head: LogHead = { seq: 0, hash: GENESIS_HASH };
  let copied = 0;
  await target.load(
    watched(source.events, (row) => {
      head = row;
      copied++;
      if (copied % PROGRESS_EVERY === 0 || copied === source.count) progress('copy', copied, source.count);
    }),
    source.keys,
  );
  let checkedHead: LogHead = { seq: 0, hash: GENESIS_HASH };
  let checked = 0;
  const chain = await verifyChain(
    watched(target.events(), (row) => {
      checkedHead = row;
      checked++;
      if (checked % PROGRESS_EVERY === 0 || checked === copied) progress('check', checked, copied);
    }),
  );
  const problems: string[] = [];
  if (!chain.ok) problems.push(`the copy's hash chain is broken at seq ${chain.seq} (${chain.stream}): ${chain.problem}`);
  else if (chain.events !== copied || checkedHead.hash !== head.hash) {
    problems.push(`the copy's log ends at seq ${checkedHead.seq} (hash ${checkedHead.hash}), the source's at seq ${head.seq} (hash ${head.hash})`);
  }
  const targetHead = await target.head();
  if (targetHead.seq !== head.seq || targetHead.hash !== head.hash) problems.push(`the copy's chain head is seq ${targetHead.seq} (hash ${targetHead.hash}), not the last event's`);
  return { events: copied, keys: source.keys.length, head: { seq: head.seq, hash: head.hash }, problems };
}

/** `rows` as they are, telling `seen` of each one as it passes. */
async function* watched(rows: Iterable<EventRow> | AsyncIterable<EventRow>, seen: (row: EventRow) => void): AsyncGenerator<EventRow> {
  for await (const row of rows) {
    seen(row);
    yield row;
  }
}
