import type { z } from 'zod';
import { type KindEventDefinition, recordKinds } from '../records/registry.ts';
import type { EventDefinition } from './define.ts';

/** Every event type the log may hold, by name: every kind of record's (records/registry.ts). */
export const eventDefinitions = recordKinds.flatMap((kind): readonly KindEventDefinition[] => kind.events);

type Definitions = (typeof eventDefinitions)[number];

/** The discriminated union of every event as projectors and readers see it (current schema version). */
export type DomainEvent = { [D in Definitions as D['type']]: { type: D['type']; data: z.infer<D['schema']> } }[Definitions['type']];

export const definitionByType = new Map<string, EventDefinition>(eventDefinitions.map((d) => [d.type, d]));
