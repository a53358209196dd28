import { type Current, type EventOf, unfolded } from '../../events/fold.ts';
import type { CategoryRecord } from './events.ts';

export type CategoryEvent = EventOf<'CategoryAdded' | 'CategoryEdited'>;

/** How each event of a product group changes the group. */
export function evolveCategory(current: Current<CategoryRecord>, event: CategoryEvent): CategoryRecord | undefined {
  switch (event.type) {
    case 'CategoryAdded':
      return event.data;
    case 'CategoryEdited': {
      const before = current();
      return before && { id: before.id, name: event.data.name ?? before.name, parent: event.data.parent ?? before.parent };
    }
    default:
      return unfolded(event);
  }
}
