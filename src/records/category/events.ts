import { z } from 'zod';
import { defineEvent } from '../../events/define.ts';

/** Facts about product groups; an omitted key in `CategoryEdited` means "unchanged". */

const categoryRecord = z.object({ id: z.number().int(), name: z.string(), parent: z.number().int() });
export type CategoryRecord = z.infer<typeof categoryRecord>;

export const CategoryAdded = defineEvent('CategoryAdded', 1, categoryRecord);
export const CategoryEdited = defineEvent('CategoryEdited', 1, z.object({ id: z.number().int(), name: z.string().optional(), parent: z.number().int().optional() }));

export const categoryEvents = [CategoryAdded, CategoryEdited] as const;
