import type { z } from 'zod';

/**
 * An event type is a value: its name, its current schema version and the zod schema of its data.
 * One source for validation, TypeScript types and documentation.
 */
export interface EventDefinition<T extends string = string, S extends z.ZodType = z.ZodType> {
  type: T;
  schemaVersion: number;
  schema: S;
}

export function defineEvent<T extends string, S extends z.ZodType>(type: T, schemaVersion: number, schema: S): EventDefinition<T, S> {
  return { type, schemaVersion, schema };
}
