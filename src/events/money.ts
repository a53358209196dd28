import { z } from 'zod';

/**
 * An amount of money in an event's data: integer kopecks. Every event's money is this one schema, so where an
 * event holds money can be read off its schema (`moneyMembers`, `mapMoney`) and never restated in a list.
 */
export const kopecks = z.number().int();

/** The member names of an event's data, at any depth: those holding money, and those holding anything else. */
export interface MembersByMoney {
  money: ReadonlySet<string>;
  other: ReadonlySet<string>;
}

type Def = { type: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType; element?: z.ZodType };
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema under its wrappers (nullable, optional, default, readonly), which change nothing of where money is. */
function unwrapped(schema: z.ZodType): z.ZodType {
  let inner = schema;
  for (let def = defOf(inner); def.innerType !== undefined; def = defOf(inner)) inner = def.innerType;
  return inner;
}

/** Schema kinds whose members this reading does not follow: an event's schema using one is refused, not misread. */
const UNFOLLOWED = new Set(['union', 'intersection', 'record', 'tuple', 'map', 'set', 'lazy', 'pipe', 'transform', 'catch', 'promise', 'custom']);

export function moneyMembers(schema: z.ZodType): MembersByMoney {
  const money = new Set<string>();
  const other = new Set<string>();
  const visit = (node: z.ZodType) => {
    const def = defOf(unwrapped(node));
    if (UNFOLLOWED.has(def.type)) throw new Error(`money cannot be found in a schema of type ${def.type}`);
    if (def.element !== undefined) visit(def.element);
    for (const [name, member] of Object.entries(def.shape ?? {})) {
      (unwrapped(member) === kopecks ? money : other).add(name);
      visit(member);
    }
  };
  visit(schema);
  return { money, other };
}

/** `data`, valid for `schema`, with every amount of money replaced by `convert(amount)`; changed in place. */
export function mapMoney(schema: z.ZodType, data: unknown, convert: (kopecks: number) => number): unknown {
  const node = unwrapped(schema);
  if (node === kopecks) return typeof data === 'number' ? convert(data) : data;
  const def = defOf(node);
  if (def.element !== undefined && Array.isArray(data)) data.forEach((item, i) => (data[i] = mapMoney(def.element!, item, convert)));
  if (def.shape !== undefined && data !== null && typeof data === 'object') {
    const fields = data as Record<string, unknown>;
    for (const [name, member] of Object.entries(def.shape)) if (name in fields) fields[name] = mapMoney(member, fields[name], convert);
  }
  return data;
}
