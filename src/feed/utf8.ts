/**
 * Texts as one UTF-8 buffer, each encoded straight into it. Joined into one string first, a page of a thousand
 * changes was copied whole twice more (the join, then flattened to count and encode its bytes).
 */
export function utf8Joined(parts: readonly string[]): Buffer<ArrayBuffer> {
  let length = 0;
  for (const part of parts) length += Buffer.byteLength(part);
  const joined = Buffer.allocUnsafe(length);
  let at = 0;
  for (const part of parts) at += joined.write(part, at);
  return joined;
}
