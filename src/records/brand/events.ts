import { z } from 'zod';
import { defineEvent } from '../../events/define.ts';

/** Facts about brands; an omitted key in `BrandEdited` means "unchanged". */

const brandRecord = z.object({ id: z.number().int(), name: z.string(), logo: z.string().nullable() });
export type BrandRecord = z.infer<typeof brandRecord>;

export const BrandAdded = defineEvent('BrandAdded', 1, brandRecord);
export const BrandEdited = defineEvent('BrandEdited', 1, z.object({ id: z.number().int(), name: z.string().optional(), logo: z.string().nullable().optional() }));

export const brandEvents = [BrandAdded, BrandEdited] as const;
