/**
 * Polls `holds` every 50 ms until it is true and answers the milliseconds it took; fails past `ms`. For what
 * must happen within a bound (a revocation reaching another server) without sleeping a fixed time.
 */
export async function within(ms: number, holds: () => Promise<boolean> | boolean): Promise<number> {
  const started = performance.now();
  while (!(await holds())) {
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return performance.now() - started;
}
