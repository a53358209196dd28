import type { BrandState } from './deciders.ts';
import { type BrandRecord, brandEvents } from './events.ts';
import { evolveBrand } from './evolve.ts';
import { lookup, recordKind } from '../kind.ts';

const nameKey = (name: string) => `brand\u0000${name}`;

/** Brands: by id and by name (who holds a name, the lowest id, and that brand); ids counted in `brands`. */
export const brand = recordKind({
  events: brandEvents,
  evolve: evolveBrand,
  idTable: 'brands',
  uniqueKey: (record: BrandRecord) => nameKey(record.name),
  lookups: {
    /** Brands by id. */
    brands: lookup<number>(async (source, ids, answers) => {
      for (const row of await source.brands(ids)) answers.set('brands', row.id, row);
      for (const id of ids) answers.setAbsent('brands', id, undefined);
    }),
    /** Brands by name: who holds the name, and that brand. */
    brandNames: lookup<string>(async (source, names, answers) => {
      const owners = new Map<string, BrandRecord>();
      for (const row of await source.brandsByName(names)) if (!owners.has(row.name) || owners.get(row.name)!.id > row.id) owners.set(row.name, row);
      for (const name of names) {
        const owner = owners.get(name);
        answers.set('brandNames', name, owner?.id);
        if (owner !== undefined) answers.set('brands', owner.id, owner);
      }
    }),
  },
  state: ({ answers, overlay, nextId }): BrandState => ({
    brand: (id) => overlay.record<BrandRecord>(`brand-${id}`) ?? answers.get('brands', id),
    brandIdByName: (name) => (overlay.owner(nameKey(name)) ?? { id: answers.get<number | undefined>('brandNames', name) }).id,
    nextBrandId: () => nextId('brands'),
  }),
  current: (state: BrandState, event) => state.brand(event.data.id),
});
