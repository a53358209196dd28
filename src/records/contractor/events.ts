import { z } from 'zod';
import { defineEvent } from '../../events/define.ts';

/** Facts about contractors. `balance` and `bonus.balance` are derived from documents, so no event carries them. */

export const bonusSettings = z.object({
  status: z.number().int(),
  percent: z.number().nullable(),
  usePercent: z.number().nullable(),
  code: z.string().nullable(),
});

export const contractorFields = z.object({
  type: z.string(),
  name: z.string(),
  contactPerson: z.string(),
  inn: z.string().nullable(),
  kpp: z.string().nullable(),
  status: z.string().nullable(),
  discount: z.number().nullable(),
  legalAddress: z.string().nullable(),
  actualAddress: z.string().nullable(),
  phone1: z.string(),
  phone2: z.string().nullable(),
  email: z.string().nullable(),
  staff: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  bonus: bonusSettings,
  giftCards: z.array(z.object({ code: z.string(), price: z.string() })),
  banks: z.array(z.object({ bik: z.string(), bank: z.string(), korNumber: z.string(), rasNumber: z.string() })),
});
export type ContractorFields = z.infer<typeof contractorFields>;
export type ContractorRecord = ContractorFields & { id: number };

export const ContractorAdded = defineEvent('ContractorAdded', 1, contractorFields.extend({ id: z.number().int() }));
export const ContractorEdited = defineEvent('ContractorEdited', 1, z.object({ id: z.number().int(), changes: contractorFields.partial() }));
/** A contractor status is created the first time a contractor names it, in its own stream. */
export const ContractorStatusCreated = defineEvent('ContractorStatusCreated', 1, z.object({ name: z.string() }));

export const contractorEvents = [ContractorAdded, ContractorEdited] as const;
export const contractorStatusEvents = [ContractorStatusCreated] as const;
