import { importLines } from '../src/use-cases/import.ts';
import { testService } from './helpers.ts';

/** A catalogue with a varied history: groups, brands and products added and edited, prices, an import below the highest id. */
export async function variedHistory() {
  const service = await testService();
  const { api, tb } = service;
  await api.write('/api/add-product-category', 'category', [{ name: 'Еда' }, { name: 'Молоко', parent: 1 }, { name: 'Химия' }]);
  await api.write('/api/add-product-brand', 'brand', [{ name: 'Бренд' }, { name: 'Другой', logo: 'x.png' }]);
  await api.write('/api/add-product', 'products', [
    { name: 'Кефир', sku: 'K', categoryId: 2, brandId: 1, salePrice: 70, barcodes: ['1', '2'] },
    { name: 'Мыло', sku: 'S', categoryId: 3, vat: 20, weight: 0.1 },
    { name: 'Доставка', sku: 'D', categoryId: 0, parent: 1 },
  ]);
  await api.write('/api/update-product-prices', 'data', [{ sku: 'K', salePrice: 75.5, minPrice: 60 }]);
  await api.write('/api/edit-product', 'products', [{ id: 2, name: 'Мыло детское', sku: 'S2', categoryId: 1, brandId: 2, unit: 'шт' }]);
  await api.write('/api/edit-product-category', 'category', [{ id: 2, name: 'Молочное', parent: 3 }]);
  await api.write('/api/edit-product-brand', 'brand', [{ id: 1, name: 'Бренд+' }]);
  // An imported product with an id below the highest one takes its place in id order.
  const lines = [
    { type: 'product', data: { id: 100, name: 'Сто', sku: 'C100', categoryId: 0 } },
    { type: 'product', data: { id: 50, name: 'Пятьдесят', sku: 'C50', categoryId: 1, additionalPrices: [{ name: 'опт', price: 10.5 }], packs: [{ unit: 'уп', count: 6 }] } },
  ];
  await importLines(tb, lines.map((l) => JSON.stringify(l)) as unknown as AsyncIterable<string>, () => {
    throw new Error('no line may fail');
  });
  return service;
}
