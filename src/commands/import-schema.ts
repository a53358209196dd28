import { z } from 'zod';
import { importLineKinds } from './import-lines.ts';

/**
 * The import's line format as JSON Schema (draft 2020-12), made from the zod schemas the import validates with
 * (`z.toJSONSchema`, as a line is given: the input side of each transform). One definition a line type, under
 * `$defs/<type>`, and the document accepts a line of any of them. JSON Schema cannot say everything the import
 * checks (docs/import.md, "What the schema cannot say"); what it says, the import agrees with.
 */
export function importJsonSchema(): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (const [type, kind] of importLineKinds) {
    const { $schema: _, ...line } = z.toJSONSchema(z.object({ type: z.literal(type), data: kind.schema }), { io: 'input', unrepresentable: 'any' });
    defs[type] = { title: `tradebook import line: ${type}`, ...line };
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://tradebook.invalid/docs/import-schema.json',
    title: 'tradebook import line',
    description: 'One line of an NDJSON import file: {"type": T, "data": {...}}. The format: docs/import.md.',
    anyOf: Object.keys(defs).map((type) => ({ $ref: `#/$defs/${type}` })),
    $defs: defs,
  };
}
