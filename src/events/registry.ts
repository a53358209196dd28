import type { z } from 'zod';
import { catalogueEvents } from './catalogue.ts';
import { contractorEvents } from './contractors.ts';
import type { EventDefinition } from './define.ts';
import { documentEvents } from './documents.ts';
import { importEvents } from './imports.ts';

/** Every event type the log may hold, by name. */
export const eventDefinitions = [...catalogueEvents, ...contractorEvents, ...documentEvents, ...importEvents] as const;

type Definitions = (typeof eventDefinitions)[number];

/** The discriminated union of every event as projectors and readers see it (current schema version). */
export type DomainEvent = { [D in Definitions as D['type']]: { type: D['type']; data: z.infer<D['schema']> } }[Definitions['type']];

export const definitionByType = new Map<string, EventDefinition>(eventDefinitions.map((d) => [d.type, d]));
