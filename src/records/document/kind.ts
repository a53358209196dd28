import type { DocumentState } from './deciders.ts';
import { type DocumentRecord, type DocumentRef, type DocumentType, documentEvents } from './events.ts';
import { evolveDocument } from './evolve.ts';
import { lookup, recordKind } from '../kind.ts';

/** A document's stream, and its key among the batch's answers: ids are unique per type. */
const streamOf = (type: DocumentType, id: number) => `${type}-${id}`;

/** Sales, purchase and money documents: by type and id, with every document their links reach. */
export const document = recordKind({
  events: documentEvents,
  evolve: evolveDocument,
  lookups: {
    /** Documents by type and id, each with every document its `basedOn` reaches (a link must not close a cycle). */
    documents: lookup<DocumentRef>(
      async (source, refs, answers) => {
        const rows = await source.documentsWithBases(refs.map(({ type, id }) => ({ type, id })));
        for (const row of rows) answers.set('documents', streamOf(row.type, row.id), row.record);
        for (const ref of [...refs, ...rows.flatMap((row) => row.record.basedOn)]) answers.setAbsent('documents', streamOf(ref.type, ref.id), undefined);
      },
      (ref) => streamOf(ref.type, ref.id),
    ),
  },
  state: ({ answers, overlay }): DocumentState => ({
    document: (type, id) => overlay.record<DocumentRecord>(streamOf(type, id)) ?? answers.get('documents', streamOf(type, id)),
  }),
  current: (state: DocumentState, event) => state.document(event.data.docType, event.data.id),
});
