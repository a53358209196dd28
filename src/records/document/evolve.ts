import { type Current, unfolded } from '../../events/fold.ts';
import type { EventsOf } from '../kind.ts';
import type { DocumentRecord, documentEvents } from './events.ts';

export type DocumentEvent = EventsOf<typeof documentEvents>;

/** How each event of a document changes the document's own record. */
export function evolveDocument(current: Current<DocumentRecord>, event: DocumentEvent): DocumentRecord | undefined {
  if (event.type === 'DocumentRecorded') {
    const { fields, status, basedOn } = event.data;
    return { fields, status, basedOn };
  }
  const before = current();
  if (before === undefined) return undefined;
  switch (event.type) {
    case 'DocumentRevised':
      return { ...before, fields: { ...before.fields, ...event.data.changes } };
    case 'DocumentPosted':
      return { ...before, status: 1 };
    case 'DocumentUnposted':
      return { ...before, status: 0 };
    case 'DocumentLinked':
      return { ...before, basedOn: event.data.basedOn };
    default:
      return unfolded(event);
  }
}
