import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';
import { importJsonSchema } from '../../src/commands/import-schema.ts';
import { importLineKinds } from '../../src/commands/import-lines.ts';
import { parseRecord } from '../../src/lib/validation.ts';
import { importRecords } from '../documents-fixtures.ts';
import { testService } from '../helpers.ts';

const DOCS = path.resolve(import.meta.dirname, '../../docs');
const shipped = JSON.parse(fs.readFileSync(path.join(DOCS, 'import-schema.json'), 'utf8'));
const validate = new Ajv2020({ strict: false, allErrors: true }).compile(shipped);

type Line = { type: string; data: Record<string, unknown> };

/** Every example line of docs/import.md: the lines of its ```ndjson blocks, in the order they stand. */
const examples: Line[] = [...fs.readFileSync(path.join(DOCS, 'import.md'), 'utf8').matchAll(/```ndjson\n([\s\S]*?)```/g)].flatMap((block) =>
  block[1]
    .trim()
    .split('\n')
    .map((text) => JSON.parse(text) as Line),
);

/** Whether the import's own validation takes the line (its type known, its data parsed by that type's schema). */
function importTakes(value: unknown): boolean {
  const { type, data } = (value ?? {}) as { type?: unknown; data?: unknown };
  const kind = typeof type === 'string' ? importLineKinds.get(type) : undefined;
  return kind !== undefined && parseRecord(kind.schema, data, kind.codes, 'ERROR_DATA').ok;
}

const schemaOf = (type: string) => shipped.$defs[type].properties.data as { required?: string[]; properties: Record<string, { type?: unknown }> };

describe('docs/import-schema.json', () => {
  test('is what the import’s own schemas make (npm run import-schema writes it)', () => {
    expect(shipped).toEqual(importJsonSchema());
  });

  test('has a definition for every line type the import knows, and no other', () => {
    expect(Object.keys(shipped.$defs).sort()).toEqual([...importLineKinds.keys()].sort());
  });
});

describe('docs/import.md', () => {
  test('has an example line of every type', () => {
    expect([...new Set(examples.map((line) => line.type))].sort()).toEqual([...importLineKinds.keys()].sort());
  });

  test('every example passes the import’s validation and the schema', () => {
    for (const line of examples) expect([line.type, line.data.id, importTakes(line), validate(line)]).toEqual([line.type, line.data.id, true, true]);
  });

  test('the examples, imported in the order they stand, all go in', async () => {
    const { tb } = await testService();
    const report = await importRecords(tb, examples);
    expect(report.failures).toEqual([]);
    expect(report.applied).toBe(examples.length);
  });
});

describe('the schema agrees with the import’s validation', () => {
  /**
   * Samples made from each example: changed so both must refuse them, or so both must still take them, or (an
   * optional field given as null: some take null, some do not) so both must merely answer alike.
   */
  function samples(line: Line): { why: string; value: unknown; valid?: boolean }[] {
    const data = schemaOf(line.type);
    const out: { why: string; value: unknown; valid?: boolean }[] = [];
    for (const field of data.required ?? []) {
      const { [field]: _, ...rest } = line.data;
      out.push({ why: `without ${field}`, value: { ...line, data: rest }, valid: false });
    }
    for (const [field, property] of Object.entries(data.properties)) {
      if (property.type === 'integer') {
        out.push({ why: `${field} as text`, value: { ...line, data: { ...line.data, [field]: 'x' } }, valid: false });
        out.push({ why: `${field} a fraction`, value: { ...line, data: { ...line.data, [field]: 1.5 } }, valid: false });
        out.push({ why: `${field} below its least`, value: { ...line, data: { ...line.data, [field]: -1 } }, valid: false });
      }
      if (!(data.required ?? []).includes(field) && !(field in line.data) && field !== 'id') {
        out.push({ why: `${field} null`, value: { ...line, data: { ...line.data, [field]: null } } });
      }
    }
    out.push({ why: 'an unknown field', value: { ...line, data: { ...line.data, unknownField: 1 } }, valid: true });
    out.push({ why: 'data not an object', value: { ...line, data: [line.data] }, valid: false });
    return out;
  }

  test('on each example changed field by field: a required field left out, a whole number wrong, an optional one null, an unknown one added', () => {
    let checked = 0;
    for (const line of examples) {
      for (const sample of samples(line)) {
        // Each side's answer, beside what both must say.
        const takes = importTakes(sample.value);
        expect([line.type, sample.why, takes, validate(sample.value)]).toEqual([line.type, sample.why, sample.valid ?? takes, sample.valid ?? takes]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(200);
  });

  test('on hand-picked lines: choices, ranges, an unknown type', () => {
    const contractor = examples.find((line) => line.type === 'contractor')!;
    const sale = examples.find((line) => line.type === 'sale')!;
    const cases: [string, unknown, boolean][] = [
      ['an unknown line type', { type: 'spaceship', data: {} }, false],
      ['no type', { data: sale.data }, false],
      ['a contractor type not in the list', { ...contractor, data: { ...contractor.data, type: 'ООО' } }, false],
      ['a discount over 100', { ...contractor, data: { ...contractor.data, discount: 101 } }, false],
      ['a discount of 100', { ...contractor, data: { ...contractor.data, discount: 100 } }, true],
      ['status 2', { ...sale, data: { ...sale.data, status: 2 } }, false],
      ['status "1"', { ...sale, data: { ...sale.data, status: '1' } }, true],
      ['a negative price', { ...sale, data: { ...sale.data, products: [{ pr_count: 1, pr_price: -1 }] } }, false],
      ['a line without its count', { ...sale, data: { ...sale.data, products: [{ pr_price: 1 }] } }, false],
      ['a basedOn of an unknown type', { ...sale, data: { ...sale.data, basedOn: [{ type: 'invoice', id: 1 }] } }, false],
      ['a user of an unknown kind', { ...sale, data: { ...sale.data, user: { id: 1, type: 'root', name: 'x' } } }, false],
    ];
    for (const [why, value, valid] of cases) expect([why, importTakes(value), validate(value)]).toEqual([why, valid, valid]);
  });
});
