import type { z } from 'zod';
import { productEvents } from '../records/product/events.ts';
import { brandEvents } from '../records/brand/events.ts';
import { categoryEvents } from '../records/category/events.ts';
import { companyEvents } from './company.ts';
import { contractorEvents } from '../records/contractor/events.ts';
import type { EventDefinition } from './define.ts';
import { documentEvents } from '../records/document/events.ts';
import { importEvents } from './imports.ts';

/** Every event type the log may hold, by name. */
export const eventDefinitions = [...productEvents, ...categoryEvents, ...brandEvents, ...contractorEvents, ...documentEvents, ...importEvents, ...companyEvents] as const;

type Definitions = (typeof eventDefinitions)[number];

/** The discriminated union of every event as projectors and readers see it (current schema version). */
export type DomainEvent = { [D in Definitions as D['type']]: { type: D['type']; data: z.infer<D['schema']> } }[Definitions['type']];

export const definitionByType = new Map<string, EventDefinition>(eventDefinitions.map((d) => [d.type, d]));
