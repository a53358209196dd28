import { describe, expect, test } from 'vitest';
import { inDependencyOrder } from '../../src/projections/dependency-order.ts';
import { projectors } from '../../src/projections/registry.ts';

const model = (name: string, ...after: string[]) => ({ name, after });
const names = (list: { name: string }[]) => list.map((p) => p.name);

describe('projectors in dependency order', () => {
  test('each comes after the read models it names, whatever order they are listed in', () => {
    const list = [model('months', 'documents'), model('documents', 'contractors'), model('products', 'brands', 'groups'), model('contractors'), model('groups'), model('brands')];
    expect(names(inDependencyOrder(list))).toEqual(['contractors', 'documents', 'months', 'groups', 'brands', 'products']);
  });

  test('independent ones keep the order they are listed in', () => {
    expect(names(inDependencyOrder([model('c'), model('a'), model('b')]))).toEqual(['c', 'a', 'b']);
  });

  test('a cycle is an error', () => {
    expect(() => inDependencyOrder([model('a', 'c'), model('b', 'a'), model('c', 'b'), model('d')])).toThrow('cycle (or after one): a, b, c');
    expect(() => inDependencyOrder([model('a', 'a')])).toThrow('cycle');
  });

  test('an unknown name or a name listed twice is an error', () => {
    expect(() => inDependencyOrder([model('products', 'brand')])).toThrow('read model "products" comes after "brand", which is not listed');
    expect(() => inDependencyOrder([model('a'), model('a')])).toThrow('read model "a" is listed twice');
  });

  test('the registry applies events in the order the read models need', () => {
    expect(names(projectors)).toEqual(['brands', 'categories', 'products', 'contractors', 'documents', 'document_months']);
    for (const [i, p] of projectors.entries()) for (const name of p.after) expect(names(projectors.slice(0, i))).toContain(name);
  });
});
