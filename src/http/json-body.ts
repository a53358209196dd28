/**
 * Reading a request body as JSON. Only well-formed UTF-8 is JSON (RFC 8259): a body with invalid bytes is
 * refused rather than decoded with U+FFFD, which would store text other than what the client sent. Nesting
 * is bounded because everything after parsing (hashing, canonical form) walks the value recursively; no
 * record of the API nests deeper than a few levels.
 */
export const MAX_JSON_DEPTH = 64;

const utf8 = new TextDecoder('utf-8', { fatal: true });

export type JsonBody = { ok: true; value: unknown } | { ok: false; problem: string };

export function parseJsonBody(bytes: Uint8Array): JsonBody {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, problem: 'the body is not valid UTF-8' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'the body is not valid JSON' };
  }
  if (nestingDepth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) return { ok: false, problem: `the body nests deeper than ${MAX_JSON_DEPTH} levels` };
  return { ok: true, value };
}

/** How deep `value` nests, counted without recursion and stopping once past `limit`. */
function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [next, depth] = pending.pop()!;
    if (next === null || typeof next !== 'object') continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    if (deepest > limit) return deepest;
    for (const child of Object.values(next)) pending.push([child, depth + 1]);
  }
  return deepest;
}
