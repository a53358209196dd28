import { type Current, unfolded } from '../../events/fold.ts';
import type { EventsOf } from '../kind.ts';
import type { ContractorRecord, contractorEvents, contractorStatusEvents } from './events.ts';

export type ContractorEvent = EventsOf<typeof contractorEvents>;
export type ContractorStatusEvent = EventsOf<typeof contractorStatusEvents>;

/** A contractor status is a name that exists once a contractor named it. */
export interface ContractorStatusRecord {
  name: string;
}

/** How each contractor event changes the contractor, and a status's one event (folded by every reader of records: see records/registry.ts). */
export function evolveContractor(current: Current<ContractorRecord>, event: ContractorEvent): ContractorRecord | undefined {
  switch (event.type) {
    case 'ContractorAdded':
      return event.data;
    case 'ContractorEdited': {
      const before = current();
      return before && { ...before, ...event.data.changes };
    }
    default:
      return unfolded(event);
  }
}

export function evolveContractorStatus(event: ContractorStatusEvent): ContractorStatusRecord {
  switch (event.type) {
    case 'ContractorStatusCreated':
      return { name: event.data.name };
    default:
      return unfolded(event.type);
  }
}
