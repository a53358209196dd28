import { pays } from '../projections/documents/components.ts';
import type { DocumentRecord, DocumentRef, DocumentType } from '../events/documents.ts';

/** What an auditor's account of `paid` reads. */
export interface PaidReads {
  childrenOf(type: DocumentType, id: number): Promise<DocumentRef[]>;
  byId(type: DocumentType, id: number): Promise<DocumentRecord | undefined>;
}

/** A payment counted in a document's `paid`: its address and sum (kopecks). */
export interface Payment extends DocumentRef {
  sum: number;
}

/**
 * How a document's `paid` is made up: every posted payment whose `basedOn` chain reaches it, each once — the
 * documents made from it, from those, and so on, that pay (decisions.md §7). Their sums add up to `paid`.
 */
export async function paymentsOf(type: DocumentType, id: number, reads: PaidReads): Promise<Payment[]> {
  const seen = new Set<string>([`${type}-${id}`]);
  const payments: Payment[] = [];
  let level: DocumentRef[] = [{ type, id }];
  while (level.length > 0) {
    const next: DocumentRef[] = [];
    for (const parent of level) {
      for (const child of await reads.childrenOf(parent.type, parent.id)) {
        if (seen.has(`${child.type}-${child.id}`)) continue;
        seen.add(`${child.type}-${child.id}`);
        next.push(child);
        const record = await reads.byId(child.type, child.id);
        if (record && pays(child.type, record.status)) payments.push({ ...child, sum: record.fields.sum });
      }
    }
    level = next;
  }
  return payments.sort((a, b) => a.type.localeCompare(b.type) || a.id - b.id);
}
