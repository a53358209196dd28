import type { ContractorState } from './deciders.ts';
import { type ContractorRecord, contractorEvents, contractorStatusEvents } from './events.ts';
import { evolveContractor, evolveContractorStatus } from './evolve.ts';
import { lookup, recordKind } from '../kind.ts';

/** Contractors: by id; ids counted in `contractors`. */
export const contractor = recordKind({
  events: contractorEvents,
  evolve: evolveContractor,
  idTable: 'contractors',
  lookups: {
    /** Contractors by id. */
    contractors: lookup<number>(async (source, ids, answers) => {
      const found = await source.contractors(ids);
      for (const id of ids) answers.set('contractors', id, found.get(id));
    }),
    /** Contractor statuses by name: whether one exists. */
    contractorStatuses: lookup<string>(async (source, names, answers) => {
      const existing = await source.existingContractorStatuses(names);
      for (const name of names) answers.set('contractorStatuses', name, existing.has(name));
    }),
  },
  state: ({ answers, overlay, nextId }): ContractorState => ({
    contractor: (id) => overlay.record<ContractorRecord>(`contractor-${id}`) ?? answers.get('contractors', id),
    nextContractorId: () => nextId('contractors'),
    contractorStatusExists: (name) => overlay.has(`contractor-status-${name}`) || answers.get<boolean>('contractorStatuses', name),
  }),
  current: (state: ContractorState, event) => state.contractor(event.data.id),
});

/** A contractor status: a name, in a stream of its own, that exists once a contractor named it (read with contractors). */
export const contractorStatus = recordKind({
  events: contractorStatusEvents,
  evolve: (_current, event) => evolveContractorStatus(event),
  current: (state: ContractorState, event) => (state.contractorStatusExists(event.data.name) ? { name: event.data.name } : undefined),
});
