/** JSON with object keys sorted at every depth: one spelling for one value, so it can be hashed or compared. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonicalValue(value));
}

/**
 * The value exactly as `JSON.parse(canonicalJson(value))` gives it back (keys sorted at every depth, what JSON
 * cannot hold dropped or nulled as `JSON.stringify` does), without the text round trip.
 */
export function canonicalValue(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? value + 0 : null; // -0 + 0 is 0, as JSON spells it
  if (value === null || typeof value !== 'object') return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return canonicalValue((value as { toJSON(): unknown }).toJSON());
  if (Array.isArray(value)) return value.map((item) => (item === undefined || typeof item === 'function' || typeof item === 'symbol' ? null : canonicalValue(item)));
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    // A `__proto__` key (JSON.parse makes it an own property) would set the prototype instead of a property.
    if (key === '__proto__') Object.defineProperty(sorted, key, { value: canonicalValue(item), enumerable: true, writable: true, configurable: true });
    else sorted[key] = canonicalValue(item);
  }
  return sorted;
}
