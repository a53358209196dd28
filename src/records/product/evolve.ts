import { type Current, unfolded } from '../../events/fold.ts';
import type { EventsOf } from '../kind.ts';
import type { ProductRecord, productEvents } from './events.ts';

export type ProductEvent = EventsOf<typeof productEvents>;

/** How each product event changes the product (folded by every reader of records: see records/registry.ts). */
export function evolveProduct(current: Current<ProductRecord>, event: ProductEvent): ProductRecord | undefined {
  switch (event.type) {
    case 'ProductAdded':
      return event.data;
    case 'ProductEdited':
    case 'ProductPricesUpdated': {
      const before = current();
      return before && { ...before, ...event.data.changes };
    }
    default:
      return unfolded(event);
  }
}
