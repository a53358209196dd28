import { pays } from '../projections/documents/components.ts';
import type { ChildDocument } from '../projections/documents/queries.ts';
import type { DocumentRef } from '../records/document/events.ts';

/** What an auditor's account of `paid` reads: a level of the tree at a time, however many documents it holds. */
export interface PaidReads {
  /** The documents made from any of `parents`, each once. */
  childrenOf(parents: DocumentRef[]): Promise<ChildDocument[]>;
}

/** A payment counted in a document's `paid`: its address and sum (kopecks). */
export interface Payment extends DocumentRef {
  sum: number;
}

/**
 * How a document's `paid` is made up: every posted payment whose `basedOn` chain reaches it, each once — the
 * documents made from it, from those, and so on, that pay (decisions.md §7). Their sums add up to `paid`.
 */
export async function paymentsOf(root: DocumentRef, reads: PaidReads): Promise<Payment[]> {
  const seen = new Set<string>([`${root.type}-${root.id}`]);
  const payments: Payment[] = [];
  let level: DocumentRef[] = [root];
  while (level.length > 0) {
    const next: DocumentRef[] = [];
    for (const { type, id, record } of await reads.childrenOf(level)) {
      if (seen.has(`${type}-${id}`)) continue;
      seen.add(`${type}-${id}`);
      next.push({ type, id });
      if (record && pays(type, record.status)) payments.push({ type, id, sum: record.fields.sum });
    }
    level = next;
  }
  return payments.sort((a, b) => a.type.localeCompare(b.type) || a.id - b.id);
}
