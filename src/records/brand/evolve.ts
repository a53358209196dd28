import { type Current, unfolded } from '../../events/fold.ts';
import type { EventsOf } from '../kind.ts';
import type { BrandRecord, brandEvents } from './events.ts';

export type BrandEvent = EventsOf<typeof brandEvents>;

/** How each event of a brand changes the brand. */
export function evolveBrand(current: Current<BrandRecord>, event: BrandEvent): BrandRecord | undefined {
  switch (event.type) {
    case 'BrandAdded':
      return event.data;
    case 'BrandEdited': {
      const before = current();
      // A logo of null removes it; an absent one leaves it.
      return before && { id: before.id, name: event.data.name ?? before.name, logo: event.data.logo === undefined ? before.logo : event.data.logo };
    }
    default:
      return unfolded(event);
  }
}
