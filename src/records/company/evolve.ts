import { unfolded } from '../../events/fold.ts';
import type { EventsOf } from '../kind.ts';
import type { CompanyDetails, companyEvents } from './events.ts';

export type CompanyEvent = EventsOf<typeof companyEvents>;

/** The company's details: each setting is whole, so the latest one is the record. */
export function evolveCompanyDetails(event: CompanyEvent): CompanyDetails {
  switch (event.type) {
    case 'CompanyDetailsSet':
      return event.data;
    default:
      return unfolded(event.type);
  }
}
