import type { ContractorRecord } from '../../records/contractor/events.ts';
import { isLineDocument } from '../../records/document/events.ts';
import type { LinkedFigures, Lookup, ServedRows } from '../read-model.ts';
import { BuildGraph } from './build-graph.ts';
import { type Figures, movesFigures, readComponents } from './components.ts';
import type { DocumentRow } from './records.ts';
import { type ShownContractor, lineDocumentView, moneyDocumentView, shownContractor } from './views.ts';

/**
 * The rows the document lists serve (`documents`), as a declaration the row writer renders at the flush: each
 * document's list JSON with its contractor as it is now, its `paid` and its tree (the figures of its component,
 * `components.ts`), and the columns pages filter on.
 */

/** Contractors kept shown during a flush (~150 bytes each): a rebuild's flush reads each once, and memory stays bounded. */
const CONTRACTORS_SHOWN_KEPT = 20_000;

/** What a document shows of its contractor (`undefined` when there is none), read when its row is rendered. */
export const contractorShown: Lookup<DocumentRow> = {
  table: 'contractors',
  column: 'record',
  value: (json) => (json === undefined ? undefined : shownContractor(JSON.parse(json as string) as ContractorRecord)),
  // A build renders every document: a contractor read on its own would be a statement a document once the
  // contractors outnumber what is kept.
  of: (row) => row.doc.fields.contractorId,
  limit: CONTRACTORS_SHOWN_KEPT,
};

/** The key the tree is served under in the list JSON: its last, and no tree node holds a key of that name. */
const TREE_KEY = ',"tree":';

/**
 * A document's figures are its component's: any change of a status, a sum, a link or a node's label moves them
 * for the whole component, walked through the links live, found from what a build kept of every document at its
 * end (`BuildGraph`).
 */
const componentFigures: LinkedFigures<DocumentRow, Figures> = {
  moves: movesFigures,
  // A parent it was based on may now head a component of its own.
  left: (_row, before) => before.doc.basedOn.map((parent) => [[parent.type], parent.id] as const),
  read: readComponents,
  kept: () => new BuildGraph(),
  served: {
    columns: ['paid', 'list_json'],
    figures: ([paid, json]) => ({ paid: paid as number, tree: (json as string).slice((json as string).lastIndexOf(TREE_KEY) + TREE_KEY.length, -1) }),
  },
};

export const servedDocuments: ServedRows<DocumentRow, Figures> = {
  table: 'documents',
  columns: {
    key: 'integer', type: 'text', id: 'integer', date: 'text', month: 'text', status: 'integer', contractor_id: 'integer', paid: 'integer',
    list_json: 'text',
  },
  async render({ key, type, id, doc }, { paid, tree }, context) {
    const shown = (await context.lookup('contractor', doc.fields.contractorId)) as ShownContractor | undefined;
    const view = isLineDocument(type)
      ? lineDocumentView(id, type, doc.status, doc.fields, shown, paid, null)
      : moneyDocumentView(id, type, doc.status, doc.fields, shown, null);
    // The tree is kept as JSON text already; it is the view's last key, so it is spliced in as text.
    const json = JSON.stringify(view).slice(0, -'null}'.length) + tree + '}';
    const date = doc.fields.date;
    return [key, type, id, date, date.slice(0, 7), doc.status, doc.fields.contractorId, paid, json];
  },
  figures: componentFigures,
};
