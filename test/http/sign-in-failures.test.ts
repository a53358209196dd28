import { expect, test } from 'vitest';
import { SignInFailures } from '../../src/http/workbench/sign-in-failures.ts';
import { manualClock } from '../helpers.ts';

test('failures are kept for at most 10,000 addresses, the least recently failed forgotten first; a minute later an address is free', () => {
  const clock = manualClock();
  const failures = new SignInFailures(clock);
  for (let i = 0; i < 10; i++) failures.record('198.51.100.1');
  expect(failures.retryAfterS('198.51.100.1')).toBe(60);
  clock.advance(59_500);
  expect(failures.retryAfterS('198.51.100.1')).toBe(1);
  clock.advance(500);
  expect(failures.retryAfterS('198.51.100.1')).toBeUndefined();

  for (let i = 0; i < 10; i++) failures.record('203.0.113.1');
  for (let n = 0; n < 10_000; n++) failures.record(`10.0.${n >> 8}.${n & 255}`);
  expect(failures.retryAfterS('203.0.113.1')).toBeUndefined();
  for (let i = 0; i < 9; i++) failures.record('10.0.39.15');
  expect(failures.retryAfterS('10.0.39.15')).toBe(60);
});
