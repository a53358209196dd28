/** Money is integer kopecks inside and a number with at most two decimals on the wire. */

/** Kopecks from a wire amount, or undefined when it has more than two decimals or is not finite. */
export function toKopecks(amount: number): number | undefined {
  if (!Number.isFinite(amount)) return undefined;
  const kopecks = Math.round(amount * 100);
  // Accept only amounts that are exactly representable in kopecks (12.34, not 12.345).
  if (Math.abs(kopecks - amount * 100) > 1e-6 * Math.max(1, Math.abs(amount))) return undefined;
  if (!Number.isSafeInteger(kopecks)) return undefined;
  return kopecks;
}

export function fromKopecks(kopecks: number): number;
export function fromKopecks(kopecks: number | null): number | null;
export function fromKopecks(kopecks: number | null): number | null {
  return kopecks === null ? null : kopecks / 100;
}
