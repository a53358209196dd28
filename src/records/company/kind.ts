import { companyEvents } from './events.ts';
import { evolveCompanyDetails } from './evolve.ts';
import { recordKind } from '../kind.ts';

/** The company's own details, in the one stream `company`; no command reads them to decide. */
export const company = recordKind({
  events: companyEvents,
  evolve: (_current, event) => evolveCompanyDetails(event),
});
