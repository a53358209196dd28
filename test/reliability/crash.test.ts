import { expect, test } from 'vitest';
import { crashTest } from '../../scripts/crash-test.ts';

// The quick version of scripts/crash-test.ts; `npm run crash-test` runs the long one.
test('SIGKILL under write load, three rounds: every acknowledged batch whole, none partial, the log verifies', async () => {
  const report = await crashTest({ rounds: 3, clients: 3, maxRunMs: 1500 });
  console.log(`rounds ${report.rounds}, acknowledged ${report.acknowledged}, found ${report.found}, unanswered but applied ${report.unansweredApplied}`);
  expect(report.problems).toEqual([]);
  expect(report.acknowledged).toBeGreaterThan(0);
  expect(report.found).toBe(report.acknowledged);
}, 90_000);
