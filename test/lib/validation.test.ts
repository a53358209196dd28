import { z } from 'zod';
import { expect, test } from 'vitest';
import { issuesToErrors } from '../../src/lib/validation.ts';

test('an error-code override is an own key of the overrides: a field named like an Object property gets its ERROR_ name', () => {
  const issue = (field: string) => ({ code: 'custom', message: 'bad', path: [field], input: undefined }) as z.core.$ZodIssue;
  const errors = issuesToErrors(['constructor', 'toString', '__proto__', 'name'].map(issue), { name: 'ERROR_BRAND_NAME' });
  expect(errors.map((e) => e.code)).toEqual(['ERROR_CONSTRUCTOR', 'ERROR_TO_STRING', 'ERROR___PROTO__', 'ERROR_BRAND_NAME']);
});
