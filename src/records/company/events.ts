import { z } from 'zod';
import { defineEvent } from '../../events/define.ts';

/**
 * Facts about the company itself: its details as the акт сверки and the document pages name it. Each setting is
 * whole (no field means "unchanged") and in force from its `from` day until the next setting's, so an акт drawn
 * for a past period names the company as it was then. They go to one stream, `company`.
 */

export const COMPANY_STREAM = 'company';

export const companyDetails = z.object({
  /** The first day (YYYY-MM-DD) these details are in force. */
  from: z.string(),
  name: z.string(),
  inn: z.string(),
  /** An individual entrepreneur (a 12-digit INN) has none. */
  kpp: z.string().nullable(),
  address: z.string().nullable(),
  director: z.string().nullable(),
  accountant: z.string().nullable(),
});
export type CompanyDetails = z.infer<typeof companyDetails>;

export const CompanyDetailsSet = defineEvent('CompanyDetailsSet', 1, companyDetails);

export const companyEvents = [CompanyDetailsSet] as const;
