import { type SqlSession, byCount, inChunks, valueList } from '../../storage/sql.ts';
import { rowsKeptByKey } from '../rows-kept-back.ts';
import type { ContractorRecord } from '../../records/contractor/events.ts';
import type { TableNames } from '../projector.ts';
import { isLineDocument } from '../../records/document/events.ts';
import type { DocumentRow } from './records.ts';
import { type ShownContractor, lineDocumentView, moneyDocumentView, shownContractor } from './views.ts';

/**
 * The rows the document lists serve (`documents`): each document's list JSON rendered with its contractor as it
 * is now, its `paid` and its tree, and the columns pages filter on.
 */

/** Contractors kept shown during a flush (~150 bytes each): a rebuild's flush reads each once, and memory stays bounded. */
const OWNERS_KEPT = 20_000;

/** The served rows' columns, the key first, in the order `render` gives their values. */
const SERVED_COLUMNS = ['key', 'type', 'id', 'date', 'month', 'status', 'contractor_id', 'paid', 'list_json'];
/** Those a render rewrites: the others follow from the key. */
const RERENDERED_COLUMNS = ['date', 'month', 'status', 'contractor_id', 'paid', 'list_json'];

/** What documents show of their contractors, read during one flush, at most OWNERS_KEPT at a time. */
class ShownOwners {
  private readonly owners = new Map<number, ShownContractor | undefined>();
  private readonly contractorsIn: (count: number) => string;

  constructor(
    private readonly session: SqlSession,
    n: TableNames,
    private readonly contractor: (id: number) => Promise<ContractorRecord | undefined>,
  ) {
    this.contractorsIn = byCount((count) => `SELECT id, record FROM ${n('contractors')} WHERE id IN (${valueList(count)})`);
  }

  async of(id: number): Promise<ShownContractor | undefined> {
    if (!this.owners.has(id)) {
      const found = await this.contractor(id);
      if (this.owners.size >= OWNERS_KEPT) this.owners.clear();
      this.owners.set(id, found && shownContractor(found));
    }
    return this.owners.get(id);
  }

  /** Reads those of these contractors not kept yet, a statement a hundred; the kept ones are forgotten first when they would not all fit. */
  async keep(ids: readonly number[]): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.owners.has(id));
    if (this.owners.size + missing.length > OWNERS_KEPT) this.owners.clear();
    await inChunks(missing, async (chunk) => {
      const found = new Map(await this.session.rows<[number, string]>(this.contractorsIn(chunk.length), chunk));
      for (const id of chunk) {
        const json = found.get(id);
        this.owners.set(id, json === undefined ? undefined : shownContractor(JSON.parse(json) as ContractorRecord));
      }
    });
  }

  forget(): void {
    this.owners.clear();
  }
}

/** The served rows, rendered and kept back by key until a statement's worth is rendered or the flush step ends (`write`). */
export class ServedDocuments {
  private readonly served: string;
  private readonly owners: ShownOwners;
  private readonly unwritten: ReturnType<typeof rowsKeptByKey>;

  constructor(
    private readonly session: SqlSession,
    n: TableNames,
    contractor: (id: number) => Promise<ContractorRecord | undefined>,
  ) {
    this.served = `SELECT paid, list_json FROM ${n('documents')} WHERE key = ?`;
    this.owners = new ShownOwners(session, n, contractor);
    this.unwritten = rowsKeptByKey(session, n('documents'), SERVED_COLUMNS, RERENDERED_COLUMNS);
  }

  /** Renders the document's served row with the paid and tree given; written a hundred at a time. */
  async render({ key, type, id, doc }: DocumentRow, paid: number, tree: string): Promise<void> {
    const shown = await this.owners.of(doc.fields.contractorId);
    const view = isLineDocument(type)
      ? lineDocumentView(id, type, doc.status, doc.fields, shown, paid, null)
      : moneyDocumentView(id, type, doc.status, doc.fields, shown, null);
    // The tree is kept as JSON text already; it is the view's last key, so it is spliced in as text.
    const json = JSON.stringify(view).slice(0, -'null}'.length) + tree + '}';
    const date = doc.fields.date;
    if (this.unwritten.set([key, type, id, date, date.slice(0, 7), doc.status, doc.fields.contractorId, paid, json])) await this.write();
  }

  /**
   * Reads what documents show of those of these contractors not kept yet, before their documents are rendered: a
   * build renders every document, and a contractor read on its own is a statement a document once the
   * contractors outnumber what is kept. Every one asked for is kept while its documents render.
   */
  keepOwnersOf(ids: readonly number[]): Promise<void> {
    return this.owners.keep(ids);
  }

  /**
   * Re-renders one document's list JSON with the paid and tree it is served with (a change that moves neither).
   * The tree is the list JSON's last key, and no tree node holds a key named "tree".
   */
  async rerender(row: DocumentRow): Promise<void> {
    if (this.unwritten.has(row.key)) await this.write();
    const [[paid, json]] = await this.session.rows<[number, string]>(this.served, [row.key]);
    await this.render(row, paid, json.slice(json.lastIndexOf(',"tree":') + ',"tree":'.length, -1));
  }

  /** Saves the rows rendered and not written yet. */
  write(): Promise<void> {
    return this.unwritten.write();
  }

  /** Forgets the contractors read (at the end of a flush, so none is shown as it was before an edit) and the rows not written. */
  forget(): void {
    this.owners.forget();
    this.unwritten.discard();
  }
}
