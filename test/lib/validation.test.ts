import { z } from 'zod';
import { expect, test } from 'vitest';
import { issuesToErrors } from '../../src/lib/validation.ts';

test('an error-code override is an own key of the overrides: a field named like an Object property gets its ERROR_ name', () => {
  const issue = (field: string) => ({ code: 'custom', message: 'bad', path: [field], input: undefined }) as z.core.$ZodIssue;
  const errors = issuesToErrors(['constructor', 'toString', '__proto__', 'name'].map(issue), { name: 'ERROR_BRAND_NAME' });
  expect(errors.map((e) => e.code)).toEqual(['ERROR_CONSTRUCTOR', 'ERROR_TO_STRING', 'ERROR___PROTO__', 'ERROR_BRAND_NAME']);
});

test('messages say what the value must be, in words a person reads, at the path of the problem', () => {
  const schema = z.object({
    discount: z.number().min(0).max(100),
    name: z.string().max(3),
    barcodes: z.array(z.string()).max(1),
    order: z.number().int(),
    type: z.enum(['ЮЛ', 'ФЛ']),
    status: z.union([z.literal(0), z.literal(1)]),
    bonus: z.object({ percent: z.number().max(5) }),
    vat: z.number(),
    unit: z.string(),
    code: z.string(),
    weight: z.number().gt(0),
  });
  const parsed = schema.safeParse({ discount: 150, name: 'abcd', barcodes: ['1', '2'], order: 1.5, type: 'ИП', status: 3, bonus: { percent: 9 }, vat: null, code: 5, weight: 0 });
  expect(issuesToErrors(parsed.error!.issues, {}).map((e) => e.message)).toEqual([
    'discount: must be at most 100',
    'name: must be at most 3 characters',
    'barcodes: must have at most 1 entries',
    'order: must be a whole number',
    'type: must be one of "ЮЛ", "ФЛ"',
    'status: must be one of 0, 1',
    'bonus.percent: must be at most 5',
    'vat: must not be null',
    'unit is required',
    'code: must be text',
    'weight: must be above 0',
  ]);
});
