import { type Current, unfolded } from '../../events/fold.ts';
import type { EventsOf } from '../kind.ts';
import type { CategoryRecord, categoryEvents } from './events.ts';

export type CategoryEvent = EventsOf<typeof categoryEvents>;

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
