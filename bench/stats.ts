/** Median and range of repeated measurements: the median is the figure, min–max shows the noise. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spread(values: number[]): Spread {
  if (values.length === 0) throw new Error('no measurements');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1] };
}

/** Total CPU time (user + system) of a process in clock ticks, from the 14th and 15th fields of /proc/<pid>/stat. */
export function cpuTicksOf(stat: string): number {
  // The command name (field 2) may hold spaces and parentheses: count fields from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** The peak resident set (VmHWM) in bytes, from /proc/<pid>/status; undefined when the line is absent. */
export function peakRssOf(status: string): number | undefined {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(status);
  return match ? Number(match[1]) * 1024 : undefined;
}
