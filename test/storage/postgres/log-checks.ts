import { expect } from 'vitest';
import { GENESIS_HASH, chainHash } from '../../../src/events/hash.ts';
import type { EventRow } from '../../../src/events/rows.ts';

export async function all(rows: AsyncIterable<EventRow>): Promise<EventRow[]> {
  const list: EventRow[] = [];
  for await (const row of rows) list.push(row);
  return list;
}

/** The whole log from seq 1: dense, and every row's hash that of the row before and its own columns. */
export function expectIntactChain(rows: EventRow[]): void {
  let previous = GENESIS_HASH;
  rows.forEach((row, i) => {
    expect(row.seq).toBe(i + 1);
    expect(row.hash).toBe(chainHash(previous, row));
    previous = row.hash;
  });
}
