import { type Current, type EventOf, unfolded } from '../../events/fold.ts';
import type { ProductRecord } from './events.ts';

export type ProductEvent = EventOf<'ProductAdded' | 'ProductEdited' | 'ProductPricesUpdated'>;

/** How each product event changes the product (see events/folds.ts for who folds with it). */
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
