import { z } from 'zod';
import { COMPANY_STREAM, type CompanyDetails } from './events.ts';
import type { NewEvent } from '../../events/store.ts';
import { type Result, ok } from '../../lib/result.ts';
import { calendarDate, issuesToErrors, requiredText, text } from '../../lib/validation.ts';

// `text` refuses the characters XML cannot hold: a name with one would break the акт's XLSX.
const optionalDetail = () => text(500).nullable().default(null);

/**
 * The company's details as `company set` takes them. An INN of 10 digits is an organisation's and comes with a
 * KPP; one of 12 digits is an individual entrepreneur's, who has no KPP.
 */
export const companyDetailsInput = z
  .object({
    from: calendarDate(),
    name: requiredText(500),
    inn: z.string().refine((inn) => /^(\d{10}|\d{12})$/.test(inn), 'must be 10 digits (an organisation) or 12 (an individual entrepreneur)'),
    kpp: z
      .string()
      .refine((kpp) => /^\d{4}[\dA-Z]{2}\d{3}$/.test(kpp), 'must be 9 characters: 4 digits, 2 digits or capital letters, 3 digits')
      .nullable()
      .default(null),
    address: optionalDetail(),
    director: optionalDetail(),
    accountant: optionalDetail(),
  })
  .superRefine((details, context) => {
    if (details.inn.length === 10 && details.kpp === null) context.addIssue({ code: 'custom', path: ['kpp'], message: 'an organisation (a 10-digit INN) has a KPP: give it' });
    if (details.inn.length === 12 && details.kpp !== null) context.addIssue({ code: 'custom', path: ['kpp'], message: 'an individual entrepreneur (a 12-digit INN) has no KPP' });
  });

/** The event that sets the company's details from `from` on, or what is wrong with them (one error a field). */
export function setCompanyDetails(input: unknown): Result<{ details: CompanyDetails; event: NewEvent }> {
  const parsed = companyDetailsInput.safeParse(input);
  if (!parsed.success) return { ok: false, errors: issuesToErrors(parsed.error.issues, {}) };
  const details = { ...parsed.data, name: parsed.data.name.trim() };
  return ok({ details, event: { stream: COMPANY_STREAM, type: 'CompanyDetailsSet', data: details } });
}
