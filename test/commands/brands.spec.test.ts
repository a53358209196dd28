import { describe, it } from 'vitest';
import { AddBrandInput, brandCodes, addBrand as addBrandDecider, editBrand as editBrandDecider, EditBrandInput } from '../../src/records/brand/deciders.ts';
import { importLineKinds } from '../../src/commands/import-lines.ts';
import { command, given } from './decider-spec.ts';

const addBrand = command(AddBrandInput, addBrandDecider, brandCodes);
const editBrand = command(EditBrandInput, editBrandDecider, brandCodes);
const importBrand = importLineKinds.get('product_brand')!;

const brands = {
  brands: [
    { id: 1, name: 'Заря', logo: 'https://example.ru/zarya.png' },
    { id: 2, name: 'Восток', logo: null },
  ],
};

describe('add-product-brand', () => {
  it('adds a brand under the next id, without a logo unless given', () => {
    given(brands)
      .when(addBrand, { name: 'Рассвет' })
      .thenEvents([{ stream: 'brand-3', type: 'BrandAdded', data: { id: 3, name: 'Рассвет', logo: null }, expectedVersion: 'no_stream' }])
      .andResult({ id: 3, name: 'Рассвет' });
    given()
      .when(addBrand, { name: 'Рассвет', logo: 'r.png' })
      .thenEvents([{ stream: 'brand-1', type: 'BrandAdded', data: { id: 1, name: 'Рассвет', logo: 'r.png' }, expectedVersion: 'no_stream' }]);
  });

  it('a name another brand has is ERROR_BRAND_NAME', () => {
    given(brands).when(addBrand, { name: 'Заря' }).thenErrors({ code: 'ERROR_BRAND_NAME', field: 'name' });
  });

  it('a blank name is ERROR_BRAND_NAME', () => {
    given(brands).when(addBrand, { name: '' }).thenErrors({ code: 'ERROR_BRAND_NAME', field: 'name' });
  });
});

describe('edit-product-brand', () => {
  it('carries only the new name; the logo left out stays', () => {
    given(brands)
      .when(editBrand, { id: 1, name: 'Заря-М' })
      .thenEvents([{ stream: 'brand-1', type: 'BrandEdited', data: { id: 1, name: 'Заря-М' } }])
      .andResult({ id: 1, name: 'Заря-М' });
  });

  it('null clears the logo', () => {
    given(brands).when(editBrand, { id: 1, name: 'Заря', logo: null }).thenEvents([{ stream: 'brand-1', type: 'BrandEdited', data: { id: 1, logo: null } }]);
  });

  it('the current values again append nothing', () => {
    given(brands).when(editBrand, { id: 1, name: 'Заря', logo: 'https://example.ru/zarya.png' }).thenNothing().andResult({ id: 1, name: 'Заря' });
  });

  it('may keep its own name but not take another brand’s', () => {
    given(brands).when(editBrand, { id: 2, name: 'Заря' }).thenErrors({ code: 'ERROR_BRAND_NAME', field: 'name' });
  });

  it('an unknown or missing id is ERROR_BRAND_ID', () => {
    given(brands).when(editBrand, { id: 9, name: 'Заря' }).thenErrors({ code: 'ERROR_BRAND_ID', field: 'id' });
    given(brands).when(editBrand, { name: 'Заря' }).thenErrors({ code: 'ERROR_BRAND_ID', field: 'id' });
  });
});

describe('import line: product_brand', () => {
  it('with an id that exists edits that brand', () => {
    given(brands).when(importBrand, { id: 2, name: 'Восток', logo: 'v.png' }).thenEvents([{ stream: 'brand-2', type: 'BrandEdited', data: { id: 2, logo: 'v.png' } }]);
  });

  it('with an unknown id creates the brand under that id', () => {
    given(brands)
      .when(importBrand, { id: 30, name: 'Рассвет' })
      .thenEvents([{ stream: 'brand-30', type: 'BrandAdded', data: { id: 30, name: 'Рассвет', logo: null }, expectedVersion: 'no_stream' }])
      .andResult({ id: 30, name: 'Рассвет' });
  });

  it('without an id finds the brand by name, so the same line again appends nothing', () => {
    given(brands).when(importBrand, { name: 'Восток' }).thenNothing().andResult({ id: 2, name: 'Восток' });
  });

  it('without an id and a new name adds under the next id', () => {
    given(brands).when(importBrand, { name: 'Рассвет' }).thenEvents([{ stream: 'brand-3', type: 'BrandAdded', data: { id: 3, name: 'Рассвет', logo: null }, expectedVersion: 'no_stream' }]);
  });

  it('a new id may not take a name another brand has', () => {
    given(brands).when(importBrand, { id: 30, name: 'Заря' }).thenErrors({ code: 'ERROR_BRAND_NAME', field: 'name' });
  });
});
