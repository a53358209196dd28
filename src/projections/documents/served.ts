import { ROWS_PER_STATEMENT, type SqlSession, byCount, inChunks, placeholders, valueList } from '../../storage/sql.ts';
import type { ContractorRecord } from '../../records/contractor/events.ts';
import type { TableNames } from '../projector.ts';
import { type DocumentRecord, isLineDocument } from '../../records/document/events.ts';
import type { DocumentRow } from './records.ts';
import { type ShownContractor, lineDocumentView, moneyDocumentView, shownContractor } from './views.ts';

/**
 * The rows the document lists serve (`documents`): each document's list JSON rendered with its contractor as it
 * is now, its `paid` and its tree, and the columns pages filter on.
 */

/** Contractors kept shown during a flush (~150 bytes each): a rebuild's flush reads each once, and memory stays bounded. */
const OWNERS_KEPT = 20_000;

export function bindServedDocuments(session: SqlSession, n: TableNames, contractor: (id: number) => Promise<ContractorRecord | undefined>) {
  const served = `SELECT paid, list_json FROM ${n('documents')} WHERE key = ?`;
  const contractorsIn = byCount((count) => `SELECT id, record FROM ${n('contractors')} WHERE id IN (${valueList(count)})`);
  const save = byCount(
    (rows) =>
      `INSERT INTO ${n('documents')} (key, type, id, date, month, status, contractor_id, paid, list_json)
       VALUES ${placeholders(rows, 9)}
       ON CONFLICT (key) DO UPDATE SET date = excluded.date, month = excluded.month, status = excluded.status,
         contractor_id = excluded.contractor_id, paid = excluded.paid, list_json = excluded.list_json`,
  );
  // Rendered rows wait here and go in a hundred a statement; `write` saves the rest at the end of every flush step.
  const unwritten = new Map<number, unknown[]>();
  const write = async () => {
    const rows = [...unwritten.values()];
    unwritten.clear();
    await inChunks(rows, (chunk) => session.run(save(chunk.length), chunk.flat()));
  };

  /** What documents show of the contractors read during one flush, at most OWNERS_KEPT at a time. */
  const owners = new Map<number, ShownContractor | undefined>();
  const owner = async (id: number) => {
    if (!owners.has(id)) {
      const found = await contractor(id);
      if (owners.size >= OWNERS_KEPT) owners.clear();
      owners.set(id, found && shownContractor(found));
    }
    return owners.get(id);
  };

  /** Renders the document's served row with the paid and tree given; written a hundred at a time. */
  const render = async ({ key, type, id }: DocumentRow, doc: DocumentRecord, paid: number, tree: string) => {
    const shown = await owner(doc.fields.contractorId);
    const view = isLineDocument(type)
      ? lineDocumentView(id, type, doc.status, doc.fields, shown, paid, null)
      : moneyDocumentView(id, type, doc.status, doc.fields, shown, null);
    // The tree is kept as JSON text already; it is the view's last key, so it is spliced in as text.
    const json = JSON.stringify(view).slice(0, -'null}'.length) + tree + '}';
    const date = doc.fields.date;
    unwritten.set(key, [key, type, id, date, date.slice(0, 7), doc.status, doc.fields.contractorId, paid, json]);
    if (unwritten.size >= ROWS_PER_STATEMENT) await write();
  };

  return {
    render,
    /**
     * Reads what documents show of those of these contractors not kept yet, a statement a hundred, before their
     * documents are rendered: a build renders every document, and a contractor read on its own is a statement a
     * document once the contractors outnumber what is kept. The kept ones are forgotten first when they would
     * not all fit, so every one asked for is kept while its documents render.
     */
    async keepOwnersOf(ids: readonly number[]): Promise<void> {
      const missing = [...new Set(ids)].filter((id) => !owners.has(id));
      if (owners.size + missing.length > OWNERS_KEPT) owners.clear();
      await inChunks(missing, async (chunk) => {
        const found = new Map(await session.rows<[number, string]>(contractorsIn(chunk.length), chunk));
        for (const id of chunk) {
          const json = found.get(id);
          owners.set(id, json === undefined ? undefined : shownContractor(JSON.parse(json) as ContractorRecord));
        }
      });
    },
    /**
     * Re-renders one document's list JSON with the paid and tree it is served with (a change that moves neither).
     * The tree is the list JSON's last key, and no tree node holds a key named "tree".
     */
    async rerender(row: DocumentRow): Promise<void> {
      if (unwritten.has(row.key)) await write();
      const [[paid, json]] = await session.rows<[number, string]>(served, [row.key]);
      await render(row, JSON.parse(row.record), paid, json.slice(json.lastIndexOf(',"tree":') + ',"tree":'.length, -1));
    },
    /** Saves the rows rendered and not written yet. */
    write,
    /** Forgets the contractors read (at the end of a flush, so none is shown as it was before an edit) and the rows not written. */
    forget: () => {
      owners.clear();
      unwritten.clear();
    },
  };
}
