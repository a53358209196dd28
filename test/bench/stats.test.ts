import { describe, expect, it } from 'vitest';
import { cpuTicksOf, peakRssOf, spread } from '../../bench/stats.ts';

describe('bench figures', () => {
  it('takes the median and range of repeated runs, odd and even in number', () => {
    expect(spread([5, 1, 3])).toEqual({ median: 3, min: 1, max: 5 });
    expect(spread([4, 1, 3, 2])).toEqual({ median: 2.5, min: 1, max: 4 });
    expect(() => spread([])).toThrow();
  });

  it('reads user + system ticks from /proc/<pid>/stat, even when the command name holds spaces and parentheses', () => {
    const stat = '4242 (node (server) x) S 1 4242 4242 0 -1 4194560 12 0 0 0 731 96 0 0 20 0 11 0 123 456 789';
    expect(cpuTicksOf(stat)).toBe(731 + 96);
  });

  it('reads the peak resident set from /proc/<pid>/status in bytes', () => {
    expect(peakRssOf('Name:\tnode\nVmPeak:\t 900 kB\nVmHWM:\t  123456 kB\nVmRSS:\t 1000 kB\n')).toBe(123456 * 1024);
    expect(peakRssOf('Name:\tnode\n')).toBeUndefined();
  });

  it('agrees with this process own CPU time as /proc reports it', async () => {
    const fs = await import('node:fs');
    expect(cpuTicksOf(fs.readFileSync('/proc/self/stat', 'utf8'))).toBeGreaterThan(0);
  });
});
