import { z } from 'zod';
import { defineEvent } from './define.ts';

/** Facts about product groups and brands; an omitted key in an `…Edited` event means "unchanged". */

const categoryRecord = z.object({ id: z.number().int(), name: z.string(), parent: z.number().int() });
export type CategoryRecord = z.infer<typeof categoryRecord>;

export const CategoryAdded = defineEvent('CategoryAdded', 1, categoryRecord);
export const CategoryEdited = defineEvent('CategoryEdited', 1, z.object({ id: z.number().int(), name: z.string().optional(), parent: z.number().int().optional() }));

const brandRecord = z.object({ id: z.number().int(), name: z.string(), logo: z.string().nullable() });
export type BrandRecord = z.infer<typeof brandRecord>;

export const BrandAdded = defineEvent('BrandAdded', 1, brandRecord);
export const BrandEdited = defineEvent('BrandEdited', 1, z.object({ id: z.number().int(), name: z.string().optional(), logo: z.string().nullable().optional() }));

export const catalogueEvents = [CategoryAdded, CategoryEdited, BrandAdded, BrandEdited] as const;
